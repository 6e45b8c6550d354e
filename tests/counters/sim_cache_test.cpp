// --sim-cache (counters/sim_cache.hpp) and callgrind's output files
// (counters/callgrind_dump.hpp): the recorded dumps in tests/data/callgrind/
// are the engine worker's own, written under valgrind 3.19's callgrind by a
// sweep with --counters sim (tests/data/callgrind/README.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "counters/callgrind_dump.hpp"
#include "counters/sim_backend.hpp"
#include "counters/sim_cache.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep::counters {
namespace {

std::filesystem::path dump_file(const std::string& name) {
  return std::filesystem::path(MOESWEEP_TEST_DATA) / "callgrind" / name;
}

std::string text_of(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(SimCache, DefaultsAndOneLevelGiven) {
  const SimCacheConfig d = parse_sim_cache("");
  EXPECT_EQ(d.ll.size_bytes, 32ull << 20);
  EXPECT_EQ(d.ll.ways, 16);
  EXPECT_EQ(sim_cache_label(d), "LL 32 MiB 16-way");
  const SimCacheConfig c = parse_sim_cache("LL=512MiB,16 D1=48KiB,12,64");
  EXPECT_EQ(c.ll.size_bytes, 512ull << 20);
  EXPECT_EQ(c.d1.size_bytes, 48u * 1024);
  EXPECT_EQ(c.d1.ways, 12);
  EXPECT_EQ(c.i1, d.i1);  // not given: the default
  EXPECT_EQ(sim_cache_label(c), "LL 512 MiB 16-way");
  EXPECT_EQ(parse_sim_cache(sim_cache_text(c)), c);  // round trip
  const std::vector<std::string> args = valgrind_cache_args(c);
  ASSERT_EQ(args.size(), 3u);
  EXPECT_EQ(args[2], "--LL=536870912,16,64");
  EXPECT_EQ(parse_sim_cache("LL=4M,16;D1=32K,8").ll.size_bytes, 4ull << 20);
}

TEST(SimCache, RefusesWhatValgrindWouldRefuse) {
  for (const char* bad :
       {"LL=48MiB,16",  // 49152 sets: not a power of two
        "LL=32MiB,16,48", "LL=32MiB", "LL=32MiB,16,64,1", "L2=1MiB,8", "LL=32XB,16", "LL=0,16",
        "LL=32MiB,0", "LL=32MiB,16 LL=64MiB,16", "LL", "LL=16KiB,4",  // smaller than D1
        "LL=99999999999999GiB,16",
        // valgrind's own limits (issue 44, item 7): its sizes are 32-bit, and a
        // cache must be larger than one line
        "LL=2GiB,16", "LL=4GiB,16", "I1=64,1,64"}) {
    const std::string why = test::refused([&] { parse_sim_cache(bad, "--sim-cache"); });
    EXPECT_NE(why.find("--sim-cache"), std::string::npos) << bad << ": " << why;
  }
  EXPECT_NE(test::refused([] { parse_sim_cache("LL=2GiB,16"); }).find("2 GiB - 1 B"),
            std::string::npos);
  EXPECT_EQ(parse_sim_cache("LL=1GiB,16").ll.size_bytes, 1ull << 30);  // the largest it takes
}

TEST(CallgrindDump, ReadsTheWorkersRecordedDumps) {
  const CallgrindDump tg = read_callgrind_dump(dump_file("decode-tg.out"));
  EXPECT_EQ(tg.creator.rfind("callgrind-", 0), 0u) << tg.creator;
  EXPECT_EQ(tg.label().rfind("moesweep decode tokens=", 0), 0u) << tg.trigger;
  ASSERT_TRUE(tg.ll.has_value());
  EXPECT_EQ(*tg.ll, parse_sim_cache("").ll);
  for (const char* e : {"Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw"})
    ASSERT_TRUE(tg.totals.count(e)) << e;
  EXPECT_GT(tg.totals.at("Ir"), tg.totals.at("Dr"));
  EXPECT_GE(tg.totals.at("D1mr"), tg.totals.at("DLmr"));  // an LL miss was a D1 miss first
  const CallgrindDump pp = read_callgrind_dump(dump_file("decode-pp.out"));
  EXPECT_NE(pp.label(), tg.label());
  EXPECT_GT(pp.part, 0);
}

TEST(CallgrindDump, RefusesBrokenHeadersWithTheLine) {
  const std::string good = text_of(dump_file("decode-tg.out"));
  const auto header_end =
      std::min(good.find("\nob="), good.find("\nfl="));  // the body's first line
  ASSERT_NE(header_end, std::string::npos);
  const std::string header = good.substr(0, header_end + 1);
  const auto replaced = [&](const std::string& from, const std::string& to) {
    std::string s = header;
    const auto at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  const std::vector<std::string> broken = {
      "",                                                          // empty
      header.substr(0, header.find("summary:")),                   // cut before the totals
      replaced("summary: ", "summary: 1 2 3 4 5 6 7 8 9 10 11 "),  // more counts than events
      replaced("summary: ", "summary: -5 "),                       // not a count
      replaced("summary: ", "summary: 99999999999999999999999 "),  // overflows
      replaced("creator: callgrind", "creator: cachegrind"),       // another tool's file
      replaced("version: 1", "version: 2"),
      replaced("LL cache: ", "LL cache: lots of "),
      replaced("events: ", "events: " + std::string(40, 'x') + " "),
      std::string(5000, 'a'),  // one line over the cap
      header + std::string(1, '\0'),
  };
  for (const std::string& text : broken) {
    const std::string why = test::refused([&] { parse_callgrind_dump(text, "dump.out"); });
    EXPECT_NE(why.find("dump.out"), std::string::npos) << why;
  }
}

TEST(SimMetrics, PerTokenFieldsFromCallgrindsEvents) {
  const std::map<std::string, uint64_t> e = {{"Ir", 1000}, {"Dr", 400},  {"Dw", 100},
                                             {"I1mr", 10}, {"D1mr", 60}, {"D1mw", 30},
                                             {"ILmr", 1},  {"DLmr", 20}, {"DLmw", 4}};
  const nlohmann::json m = simulated_metrics(e, 10, 64);
  EXPECT_DOUBLE_EQ(m["instructions_per_token"].get<double>(), 100);
  EXPECT_DOUBLE_EQ(m["d1_misses_per_token"].get<double>(), 9);
  EXPECT_DOUBLE_EQ(m["ll_misses_per_token"].get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(m["ll_hit_rate"].get<double>(), 1 - 25.0 / 100);
  EXPECT_DOUBLE_EQ(m["dram_bytes_per_token"].get<double>(), 2.5 * 64);
  // Nothing decoded, or an event callgrind did not count: unavailable, never 0.
  for (const nlohmann::json& none :
       {simulated_metrics(e, 0, 64), simulated_metrics({{"Ir", 5}}, 1, 64)})
    for (const std::string& name : simulated_metric_names())
      EXPECT_TRUE(none[name].contains("unavailable")) << name << none.dump();
}

}  // namespace
}  // namespace moesweep::counters
