// A phase's simulated counts (counters/sim_session.cpp) from callgrind dumps
// that a test writes into the real sim backend's private folder: a test
// double of valgrind's output (valgrind itself cannot be made to write
// these). Issue 44: two counts of 2^64-1 were summed and wrapped around; counts
// whose misses exceed their accesses gave an ll_hit_rate of -249; and one
// unreadable dump stopped the whole sweep. Each now makes that phase's
// counters unavailable with the reason, and nothing is thrown.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>

#include "counters/sim_backend.hpp"
#include "counters/sim_cache.hpp"

namespace moesweep::counters {
namespace {

namespace fs = std::filesystem;

constexpr int kPid = 4242;  // the "engine worker" the dumps are of
constexpr int kTokens = 4;

// The sim backend, and the folder valgrind would write its dumps into.
struct FakeValgrindOutput {
  SimBackend backend{parse_sim_cache("")};
  fs::path dir;
  int part = 0;

  FakeValgrindOutput() {
    const std::string flag = "--callgrind-out-file=";
    for (const std::string& a : backend.worker_launcher())
      if (a.rfind(flag, 0) == 0) dir = fs::path(a.substr(flag.size())).parent_path();
    backend.threads_changed(kPid);
  }
  // One dump as the worker's timed decode makes it, with these totals.
  void write(const std::string& summary) {
    std::ofstream(dir / fmt::format("callgrind.out.{}.{}", kPid, ++part))
        << "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npid: " << kPid
        << "\ncmd:  moesweep-worker\npart: " << part
        << "\n\ndesc: I1 cache: 32768 B, 64 B, 8-way associative\n"
           "desc: D1 cache: 32768 B, 64 B, 8-way associative\n"
           "desc: LL cache: 33554432 B, 64 B, 16-way associative\n\n"
           "desc: Trigger: Client Request: moesweep decode tokens="
        << kTokens
        << " chunk=1\n\npositions: line\nevents: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n"
        << "summary: " << summary << "\n\n";
  }
  // A phase of one repetition per dump text ("" writes a dump that is no callgrind file).
  nlohmann::json phase(const std::vector<std::string>& summaries) {
    auto session = backend.session("tg", "test");
    for (const std::string& s : summaries) {
      session->start();
      if (s.empty())
        std::ofstream(dir / fmt::format("callgrind.out.{}.{}", kPid, ++part)) << "not callgrind";
      else
        write(s);
      session->stop(0.1, kTokens);
    }
    return session->result();
  }
};

// Every simulated field unavailable, each saying `why`.
void expect_unavailable(const nlohmann::json& counters, const std::string& why) {
  for (const std::string& name : simulated_metric_names()) {
    ASSERT_TRUE(counters.at(name).is_object()) << name << ": " << counters.dump(1);
    EXPECT_NE(counters[name].at("unavailable").get<std::string>().find(why), std::string::npos)
        << name << ": " << counters.dump(1);
  }
}

const char* const kGood = "1000 400 100 10 60 30 1 20 4";

TEST(SimSession, GoodDumpsAreSummedPerToken) {
  FakeValgrindOutput fake;
  const nlohmann::json c = fake.phase({kGood, kGood});
  EXPECT_DOUBLE_EQ(c.at("instructions_per_token").get<double>(), 2000.0 / (2 * kTokens));
  EXPECT_DOUBLE_EQ(c.at("ll_hit_rate").get<double>(), 1 - 25.0 / 100);
}

TEST(SimSession, CountsThatOverflowWhenSummedAreUnavailable) {
  FakeValgrindOutput fake;
  const std::string max = "18446744073709551615";
  const std::string huge = fmt::format("{} {} 100 10 60 30 1 20 4", max, max);
  expect_unavailable(fake.phase({huge, huge}), "overflow 64 bits when summed");
}

TEST(SimSession, CountsThatContradictEachOtherAreUnavailable) {
  FakeValgrindOutput fake;  // 500 LL read misses of 60 D1 read misses: a hit rate of -4
  expect_unavailable(fake.phase({"1000 400 100 10 60 30 1 500 4"}),
                     "500 DLmr misses of 60 D1mr accesses");
  expect_unavailable(fake.phase({"1000 400 100 10 900 30 1 20 4"}), "contradict");  // D1mr > Dr
}

TEST(SimSession, AnUnreadableDumpMakesThatPhaseUnavailableNotTheSweepStop) {
  FakeValgrindOutput fake;
  nlohmann::json c;
  ASSERT_NO_THROW(c = fake.phase({kGood, ""}));
  expect_unavailable(c, "the callgrind dump is unreadable");
  EXPECT_TRUE(fake.backend.dumps_of(kPid).empty()) << "the unreadable dump was left behind";
}

// The record names the phase's kept dumps (--sim-keep-dumps), and bisect
// prints the last one for callgrind_annotate. A record is a file like any
// other: a name that leaves callgrind/, or names no file in it, is no dump.
TEST(KeptDumps, TheRecordsLastDumpOnlyWhenItIsAFileInCallgrind) {
  const auto named = [](const nlohmann::json& dumps) {
    return last_kept_dump({{"simulated", {{"dumps", dumps}}}}).string();
  };
  EXPECT_EQ(named(nlohmann::json::array(
                {"callgrind/p0-tg-rep0.callgrind", "callgrind/p0-tg-rep1.callgrind"})),
            "callgrind/p0-tg-rep1.callgrind");
  EXPECT_EQ(named(nlohmann::json::array({"callgrind/./p0-tg-rep0.callgrind"})),
            "callgrind/p0-tg-rep0.callgrind");
  for (const nlohmann::json& hostile :
       {nlohmann::json::array({"callgrind/../../../etc/passwd"}),
        nlohmann::json::array({"../callgrind/x"}), nlohmann::json::array({"/callgrind/x"}),
        nlohmann::json::array({"/etc/passwd"}), nlohmann::json::array({"callgrind/"}),
        nlohmann::json::array({"callgrind/."}), nlohmann::json::array({"callgrind/.."}),
        nlohmann::json::array({"callgrind/sub/x"}), nlohmann::json::array({"callgrind"}),
        nlohmann::json::array({std::string("callgrind/x\0/../../y", 20)}),
        nlohmann::json::array({42}), nlohmann::json::array(), nlohmann::json::array({nullptr}),
        nlohmann::json("callgrind/x"), nlohmann::json::object()})
    EXPECT_EQ(named(hostile), "") << hostile.dump();
  EXPECT_EQ(last_kept_dump(nlohmann::json::array()).string(), "");
  EXPECT_EQ(last_kept_dump({{"simulated", "callgrind/x"}}).string(), "");
  EXPECT_EQ(last_kept_dump({{"simulated", {{"dumps_not_kept", "no space"}}}}).string(), "");
}

}  // namespace
}  // namespace moesweep::counters
