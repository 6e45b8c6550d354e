// ik_llama.cpp as a second, independent engine (issue 19): `engine add
// --ik-llama` builds the source snapshot in shared/engines/ (unpacked once by
// scripts/ik-snapshot into the moesweep cache, where its build and the
// compiler cache stay warm between checkouts), and a sweep runs the same walk,
// the same thread switches and the same records through its worker, with its
// own switches. Registered once per build tree under a file lock, like the
// other real engine builds (engine_builds_test.cpp). Skipped, saying why,
// where there is no snapshot.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "engine/shared_engines.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;

using test::ensure_engine;
using test::with_registry;

// Portable AVX2 (GGML_NATIVE off): the build, cached across sessions, must
// run on whichever x86-64 CPU the next session gets. Flash-attention kernels
// for f16/q8_0 caches only (GGML_IQK_FA_ALL_QUANTS off): the test's caches are
// f16, and the full set of iqk FA kernels is most of a cold build's time.
void ensure_ik_engine(const std::string& checkout) {
  ensure_engine("ik",
                "--ik-llama " + test::shell_quoted(checkout) +
                    " --cmake-flag -DGGML_NATIVE=OFF --cmake-flag -DGGML_IQK_FA_ALL_QUANTS=OFF");
}

TEST(IkLlama, OneSweepRunsBothEnginesAndRecordsIkLlamasSwitches) {
  const std::string checkout = test::ik_snapshot();
  if (checkout.empty()) GTEST_SKIP() << "no ik_llama.cpp snapshot (shared/engines/) here";
  ensure_ik_engine(checkout);
  auto r = test::run_shell(with_registry(std::string(test::cli_path()) + " engine list --json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, nlohmann::json> listed;
  for (const auto& e : nlohmann::json::parse(r.out)) listed[e.at("name")] = e;
  ASSERT_TRUE(listed.count("ik")) << r.out;
  EXPECT_EQ(listed["ik"].at("kind"), "ik_llama.cpp");
  EXPECT_EQ(listed["ik"].at("commit").get<std::string>().substr(0, 10), "8337e4cd38");
  const fs::path out = test::scratch_dir() / "runs";
  r = test::run_shell(with_registry(
      std::string(test::cli_path()) +
      " sweep -m qwen3-moe --scale tiny -t 1,2 --allow-oversubscribe -d 0,64 -c 512 -ub 64 "
      "-p 64 -n 8 -r 2 -fmoe 1 -amb 128 --counters none --no-db --engine default,ik --out-dir " +
      test::shell_quoted(out)));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const fs::path run = test::only_run_dir(out);
  std::map<std::string, int> points;
  std::set<int> ik_threads;
  for (const std::string& line : test::read_lines(run / "records.jsonl")) {
    const nlohmann::json rec = nlohmann::json::parse(line);
    const std::string engine = rec.at("engine");
    ++points[engine];
    EXPECT_GT(rec.at("speed_tg").get<double>(), 0) << line;
    if (engine == "ik") {
      EXPECT_EQ(rec.at("extra").at("engine").at("kind"), "ik_llama.cpp") << line;
      EXPECT_EQ(rec.at("engine_opts"), "fmoe=1 amb=128") << line;
      ik_threads.insert(rec.at("n_threads").get<int>());
    } else {
      EXPECT_EQ(rec.value("engine_opts", ""), "") << line;  // mainline has no such switches
    }
  }
  EXPECT_EQ(points["ik"], 4);  // 2 depths x 2 thread counts, threads switched on the live context
  EXPECT_EQ(points["default"], 4);
  EXPECT_EQ(ik_threads, (std::set<int>{1, 2}));
  // ik against default joined point by point although ik ran with its own
  // switches: the join the run's side-by-side table renders (compare's), read
  // as JSON. One pair per point, both sides' repetitions in it.
  r = test::run_cli("compare " + test::shell_quoted(run) + " --engines default,ik --json");
  ASSERT_FALSE(r.out.empty()) << r.err;
  const nlohmann::json c = nlohmann::json::parse(r.out);
  EXPECT_NE(c.at("engines").at("new").get<std::string>().find("fmoe=1 amb=128"), std::string::npos)
      << c;
  ASSERT_EQ(c.at("points").size(), 4u) << c;  // 2 depths x 2 thread counts
  std::set<std::pair<int, int>> pairs;
  for (const auto& p : c.at("points")) {
    pairs.insert({p.at("n_threads").get<int>(), p.at("n_kv").get<int>()});
    EXPECT_EQ(p.at("tg").at("n_base"), 2) << p;
    EXPECT_EQ(p.at("tg").at("n_new"), 2) << p;
  }
  EXPECT_EQ(pairs, (std::set<std::pair<int, int>>{{1, 0}, {1, 64}, {2, 0}, {2, 64}}));
  EXPECT_TRUE(c.at("only_in_base").empty() && c.at("only_in_new").empty()) << c;
  // The run's tables carry that join under its heading.
  std::ifstream in(run / "tables.md");
  const std::string tables((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(tables.find("### ik against default"), std::string::npos) << tables;
}

}  // namespace
}  // namespace moesweep
