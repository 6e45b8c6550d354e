// A release history (report/history.hpp): runs in, tables, plot data and
// change points out; and `moesweep history --baselines` over the committed
// baseline runs of one machine class (nothing measured).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "report/history.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"
#include "util/terminal_text.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;

// A run of two cells (N_KV 0 and 256): S_TG samples around `tg`, S_PP
// around 500, and a TG instruction count.
LoadedRun run_of(double tg, double instructions, std::mt19937& rng) {
  std::normal_distribution<double> noise(1, 0.02);
  LoadedRun run;
  for (int n_kv : {0, 256}) {
    Record r;
    r.params.n_threads = 1;
    r.params.n_kv = n_kv;
    for (int k = 0; k < 6; ++k) {
      r.pp.tokens_per_s.push_back(500 * noise(rng));
      r.tg.tokens_per_s.push_back(tg * noise(rng));
    }
    r.tg.counters = {{"instructions_per_token", instructions}};
    r.pp.summarize();
    r.tg.summarize();
    run.records.push_back(r);
  }
  return run;
}

std::vector<HistoryEntry> releases(double tg_step, double count_step) {
  std::mt19937 rng(11);
  std::vector<HistoryEntry> out;
  for (int i = 0; i < 8; ++i)
    out.push_back({"3." + std::to_string(i) + ".0", i == 7 ? "v0.4.0" : "",
                   run_of(i >= 5 ? 100 * tg_step : 100, i >= 3 ? 1e7 * count_step : 1e7, rng)});
  return out;
}

TEST(History, FindsTheStepInWallTimeOnlyWhereItIs) {
  const History h = history_of(releases(0.9, 1), {});
  ASSERT_EQ(h.metrics.size(), 2u);  // S_PP, S_TG
  EXPECT_EQ(h.labels.back(), "3.7.0\nv0.4.0");
  for (const HistoryMetric& m : h.metrics) {
    ASSERT_EQ(m.series.size(), 2u) << m.name;
    EXPECT_EQ(m.series[0].cell, "threads 1, N_KV 0");
    for (const HistorySeries& s : m.series) {
      if (m.name == "S_PP") {
        EXPECT_TRUE(s.changes.empty()) << s.cell;
        continue;
      }
      ASSERT_EQ(s.changes.size(), 1u) << s.cell;
      EXPECT_EQ(s.changes[0].before, "3.4.0");
      EXPECT_EQ(s.changes[0].after, "3.5.0");
      EXPECT_NEAR(s.changes[0].step, -0.10, 0.02);
    }
  }
  const std::string md = history_markdown(h);
  EXPECT_NE(md.find("| S_TG | threads 1, N_KV 256 | 3.4.0 -> 3.5.0 | -"), std::string::npos) << md;
  const nlohmann::json plot = history_plot_data(h);
  ASSERT_EQ(plot.size(), 2u);
  EXPECT_EQ(plot[1]["file"], "history_S_TG.png");
  EXPECT_EQ(plot[1]["changes"].size(), 2u);
  EXPECT_EQ(plot[1]["changes"][0]["x"], 4.5);
}

TEST(History, CountsStepBeyondTheTolerance) {
  HistoryOptions o;
  o.counts = true;
  const History h = history_of(releases(1, 1.02), o);
  ASSERT_EQ(h.metrics.size(), 1u);  // only TG instructions were counted
  EXPECT_EQ(h.metrics[0].name, "TG instructions_per_token");
  for (const HistorySeries& s : h.metrics[0].series) {
    ASSERT_EQ(s.changes.size(), 1u);
    EXPECT_EQ(s.changes[0].after, "3.3.0");
    EXPECT_NEAR(s.changes[0].step, 0.02, 1e-9);
  }
  EXPECT_TRUE(history_of(releases(1, 1.004), o).metrics[0].series[0].changes.empty());  // 0.4%
}

// A release whose every point failed (3.9.0 and 3.10.0 abort in ggml's
// repack code at decode) is said to have failed, is no point of any series,
// and the change point is found between its measured neighbours.
TEST(History, AReleaseThatFailedToMeasureIsNoRegression) {
  std::vector<HistoryEntry> entries = releases(1, 1.02);
  for (Record& r : entries[3].run.records) {
    r.ok = false;
    r.error = "worker exited with signal 6 (SIGABRT)";
    r.tg.tokens_per_s.clear();
    r.tg.counters = nlohmann::json::object();
  }
  HistoryOptions o;
  o.counts = true;
  const History h = history_of(entries, o);
  ASSERT_EQ(h.unmeasured.size(), 1u);
  EXPECT_EQ(h.unmeasured[0].entry, 3u);
  EXPECT_EQ(h.unmeasured[0].why, "worker exited with signal 6 (SIGABRT)");
  for (const HistorySeries& s : h.metrics.at(0).series) {
    EXPECT_EQ(s.entries, (std::vector<size_t>{0, 1, 2, 4, 5, 6, 7}));
    ASSERT_EQ(s.changes.size(), 1u);
    EXPECT_EQ(s.changes[0].before, "3.2.0");  // the step at 3.3.0 seen across it
    EXPECT_EQ(s.changes[0].after, "3.4.0");
  }
  const std::string md = history_markdown(h);
  EXPECT_NE(md.find("| 3.3.0 | failed to measure | failed to measure |"), std::string::npos) << md;
  EXPECT_NE(md.find("### Failed to measure"), std::string::npos) << md;
  EXPECT_NE(md.find("- 3.3.0: worker exited with signal 6"), std::string::npos) << md;
}

TEST(History, RefusesTooShortAHistory) {
  EXPECT_THROW(history_of({releases(1, 1)[0]}, {}), UserError);
  HistoryOptions o;
  o.counts = true;
  std::mt19937 rng(1);
  std::vector<HistoryEntry> no_counts = {{"a", "", run_of(1, 1, rng)},
                                         {"b", "", run_of(1, 1, rng)}};
  for (HistoryEntry& e : no_counts)
    for (Record& r : e.run.records) r.tg.counters = nlohmann::json::object();
  EXPECT_THROW(history_of(no_counts, o), UserError);
}

// The committed baselines of one class: three runs of the ci profile.
TEST(HistoryCli, StoredBaselinesOfAClassAreAHistory) {
  fs::path cls;
  for (const auto& e :
       fs::directory_iterator(fs::path(test::source_dir()) / "results/baselines/ci"))
    cls = e.path();
  const fs::path out = test::scratch_dir();
  const auto r = test::run_cli("history --baselines " + test::shell_quoted(cls) + " --out-dir " +
                               test::shell_quoted(out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("### S_TG (t/s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("### Change points"), std::string::npos) << r.out;
  fs::path dir;
  for (const auto& e : fs::directory_iterator(out)) dir = e.path();
  const auto plot = nlohmann::json::parse(test::slurp(dir / "history.json"));
  ASSERT_EQ(plot.at("history").size(), 2u);
  EXPECT_EQ(plot["history"][0]["x_labels"].size(), 3u);
  EXPECT_TRUE(fs::is_regular_file(dir / "history.md"));
}

// A finished history's sweep read again: its engines are the releases, in
// --engine's order, and nothing is measured (the fixture: a sweep of two
// engines, each point 3 repetitions). A run of one engine is no history.
TEST(HistoryCli, AFinishedSweepOfEnginesIsReadAgainWithOtherSettings) {
  const fs::path run = fs::path(test::source_dir()) / "tests/data/runs/round5-engines";
  const fs::path out = test::scratch_dir();
  const auto r = test::run_cli("history --run " + test::shell_quoted(run) +
                               " --min-step 0 --alpha 0.05 --out-dir " + test::shell_quoted(out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("### S_TG (t/s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Method: E-divisive"), std::string::npos) << r.out;
  EXPECT_LT(r.out.find("| default"), r.out.find("| release-3.22.1")) << r.out;
  EXPECT_LE(widest_line(r.out), kTerminalWidth) << r.out;  // the method's line wrapped
  fs::path dir;
  for (const auto& e : fs::directory_iterator(out)) dir = e.path();
  // The file keeps the method's line whole (scripts grep it).
  EXPECT_NE(test::slurp(dir / "history.md")
                .find("kept at p <= 0.05 (999 permutations within repetitions) and a step of 0% "
                      "or more."),
            std::string::npos);
  const auto plot = nlohmann::json::parse(test::slurp(dir / "history.json"));
  ASSERT_FALSE(plot.at("history").empty());
  EXPECT_EQ(plot["history"][0]["x_labels"].size(), 2u);
  EXPECT_FALSE(fs::exists(run / "history.md")) << "the fixture was written into";
  const fs::path one = test::scratch_dir() / "one-engine";
  fs::create_directories(one);
  fs::copy_file(run / "meta.json", one / "meta.json");
  std::ofstream records(one / "records.jsonl");
  for (const std::string& line : test::read_lines(run / "records.jsonl"))
    if (line.find("release-3.22.1") == std::string::npos) records << line << "\n";
  records.close();
  const auto refused = test::run_cli("history --run " + test::shell_quoted(one));
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("measured 1 engine(s)"), std::string::npos) << refused.err;
}

// --releases takes the pinned releases (release_pins.hpp) in version order:
// all 33, 3.9.0 before 3.10.0; nothing is run with --dry-run.
TEST(HistoryCli, AReleaseRangeIsEveryPinnedReleaseInVersionOrder) {
  const auto r = test::run_cli("history --releases 3.1.1..3.22.1 --counts --dry-run");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t run = r.err.find("would run:");
  ASSERT_NE(run, std::string::npos) << r.err;
  size_t registrations = 0;
  for (size_t at = r.err.find("would register: moesweep engine add release-");
       at != std::string::npos && at < run;
       at = r.err.find("would register: moesweep engine add release-", at + 1))
    ++registrations;
  size_t sweeps = 0;
  for (size_t at = run; at != std::string::npos; at = r.err.find("would run:", at + 1)) ++sweeps;
  EXPECT_EQ(sweeps, 33u) << r.err;  // --counts: one sweep per release
  EXPECT_LE(registrations, 33u);
  EXPECT_LT(r.err.find("--engine release-3.9.0"), r.err.find("--engine release-3.10.0")) << r.err;
  EXPECT_LT(r.err.find("--engine release-3.7.0"), r.err.find("--engine release-3.9.0")) << r.err;
}

TEST(HistoryCli, RefusesWhatIsNoHistory) {
  const auto dir = test::scratch_dir();
  // A profile that makes no plan is refused before any release is registered.
  std::ofstream(dir / "short.json") << R"({"name": "short", "model": "kimi-k2.5", "scale": "tiny",
    "threads": "1", "depths": "0", "n-prompt": "64", "n-gen": "16", "ctx-size": 32})";
  const std::string registry = "MOESWEEP_ENGINES=" + test::shell_quoted(dir / "engines") + " ";
  const auto r = test::run_shell(registry + test::cli_path() +
                                 " history --releases 3.21.1..3.22.1 --counts --jobs 2 --profile " +
                                 test::shell_quoted(dir / "short.json"));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("(--ctx-size): value 32 is too small"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "engines" / "release-3.21.1")) << "registered first";
  for (const auto& [args, said] : std::vector<std::pair<std::string, std::string>>{
           {"--engines default,x --jobs 2", "--jobs 2 without --counts"},
           {"", "exactly one of --engines, --releases, --baselines and --run"},
           {"--run " + test::shell_quoted(dir) + " --counts", "--run with --counts"},
           {"--engines default --min-step 100", "--min-step"},
           {"--engines a --releases 3.21.1..3.22.1", "exactly one of"},
           {"--releases 3.21.1", "is no release range"},
           {"--releases 3.21.1..9.0.0", "no pinned llama.cpp release for npm version '9.0.0'"},
           {"--releases 3.22.1..3.21.1", "runs backwards"},
           {"--engines default,default", "names 'default' twice"},
           {"--engines default,a/b", "is no folder, release version"},
           {"--engines default --alpha 0.9", "--alpha"}}) {
    SCOPED_TRACE(args);
    const auto r = test::run_cli("history " + args + " --dry-run");
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find(said), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace moesweep
