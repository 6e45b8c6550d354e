// compare on recorded sample sets: a known 10% slowdown is flagged, draws from
// one distribution are not (over many seeds), mismatched keys are reported and
// never joined, and the CLI exits 4 only on a real regression, 5 when the runs
// could not have seen one (inconclusive), 0 when they could and saw none.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

#include "results/compare.hpp"
#include "results/compare_format.hpp"
#include "sample_sets.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

using test::make_record;
using test::normal_samples;

// A run of threads {1, 2} x depths {0, 256, 512}; `tg_factor` scales TG speed.
LoadedRun make_run(const std::string& id, uint64_t seed, double tg_factor, int reps = 3,
                   double cv = 0.02) {
  LoadedRun run;
  run.label = id;
  int index = 0;
  for (int threads : {1, 2}) {
    for (int n_kv : {0, 256, 512}) {
      const double pp = 120.0 * threads / (1 + n_kv / 2048.0);
      const double tg = 12.0 * threads / (1 + n_kv / 4096.0) * tg_factor;
      run.records.push_back(make_record(
          id, index, threads, n_kv, normal_samples(seed * 1000 + index, reps, pp, pp * cv),
          normal_samples(seed * 1000 + 500 + index, reps, tg, tg * cv)));
      ++index;
    }
  }
  return run;
}

void write_jsonl(const LoadedRun& run, const std::filesystem::path& file) {
  std::ofstream out(file);
  for (const Record& r : run.records) out << record_to_json(r).dump() << "\n";
}

TEST(Compare, FlagsAKnownTenPercentSlowdown) {
  // 6 against 6 samples: Mann-Whitney can reach Holm's alpha / 12 (2/924 < 0.0042)
  const Comparison c = compare_runs(make_run("base", 1, 1.0, 6), make_run("slow", 2, 0.9, 6), {});
  ASSERT_EQ(c.points.size(), 6u);  // model_path differs per run and is not in the key
  EXPECT_EQ(c.regressions, 6);     // every TG point, no PP point
  for (const auto& pc : c.points) {
    for (const auto& m : pc.metrics) {
      EXPECT_EQ(m.verdict == Verdict::kRegression, m.metric == Metric::kTg) << pc.key;
      if (m.metric == Metric::kTg) {
        EXPECT_NEAR(m.ratio, 0.9, 0.03);
      }
    }
  }
}

TEST(Compare, SlowdownDetectionPowerOverSeeds) {
  int flagged = 0, total = 0;
  for (uint64_t seed = 0; seed < 100; ++seed) {
    const Comparison c =
        compare_runs(make_run("b", 2 * seed + 7, 1.0, 6), make_run("n", 2 * seed + 8, 0.9, 6), {});
    flagged += c.regressions;
    total += static_cast<int>(c.points.size());
  }
  EXPECT_GE(flagged, total * 9 / 10) << flagged << " of " << total;
}

TEST(Compare, SameDistributionIsNotFlaggedOverManySeeds) {
  // Per metric test: p < alpha AND >= 5% slower. Count per tested metric.
  CompareOptions options;
  int regressions = 0, tests = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    const Comparison c =
        compare_runs(make_run("b", 2 * seed + 1, 1.0), make_run("n", 2 * seed + 2, 1.0), options);
    regressions += c.regressions;
    tests += static_cast<int>(c.points.size() * options.metrics.size());
  }
  EXPECT_LT(static_cast<double>(regressions) / tests, options.alpha)
      << regressions << " false regressions in " << tests << " tests";
}

TEST(Compare, SmallButRealChangeIsNotARegression) {
  CompareOptions options;
  options.metrics = {Metric::kTg};
  const Comparison c =
      compare_runs(make_run("b", 3, 1.0, 10, 0.005), make_run("n", 4, 0.97, 10, 0.005), options);
  EXPECT_EQ(c.regressions, 0);
  int small = 0;
  for (const auto& pc : c.points) small += pc.metrics[0].verdict == Verdict::kSmall;
  EXPECT_EQ(small, 6);  // 3% with 0.5% noise and 10 reps is real, but under the 5% threshold
}

TEST(Compare, MismatchedKeysAreReportedNotJoined) {
  LoadedRun base = make_run("b", 5, 1.0);
  LoadedRun fresh = make_run("n", 6, 0.5);
  for (Record& r : fresh.records) {
    if (r.params.n_threads == 2) r.params.type_k = "f16";  // another configuration
  }
  const Comparison c = compare_runs(base, fresh, {});
  EXPECT_EQ(c.points.size(), 3u);
  ASSERT_EQ(c.only_in_base.size(), 3u);
  ASSERT_EQ(c.only_in_new.size(), 3u);
  EXPECT_NE(c.only_in_base[0].differences.find("type_k: q8_0 -> f16"), std::string::npos)
      << c.only_in_base[0].differences;
  const std::string md = comparison_markdown(c);
  EXPECT_NE(md.find("Only in base (3)"), std::string::npos) << md;
  EXPECT_NE(md.find("Only in new (3)"), std::string::npos);
  // Ignoring a field is explicit, and then they join.
  CompareOptions ignoring;
  ignoring.ignore = parse_ignored_fields("type_k");
  EXPECT_EQ(compare_runs(base, fresh, ignoring).points.size(), 6u);
  EXPECT_THROW(parse_ignored_fields("depth"), UserError);
  // --on keeps only the named fields: everything measured at threads=1 collapses.
  CompareOptions on_threads;
  on_threads.ignore = fields_not_in(parse_ignored_fields("threads"));
  const Comparison collapsed = compare_runs(base, base, on_threads);
  EXPECT_EQ(collapsed.points.size(), 2u);
  EXPECT_EQ(collapsed.duplicates, 8);
}

TEST(Compare, SingleSamplePublishedTablesAreUntestable) {
  const Comparison c = compare_runs(make_run("b", 7, 1.0, 1), make_run("n", 8, 0.5, 1), {});
  EXPECT_EQ(c.regressions, 0);
  for (const auto& pc : c.points) {
    for (const auto& m : pc.metrics) EXPECT_EQ(m.verdict, Verdict::kUntestable);
  }
}

// Run-to-run shifts (another tenant, clock changes) are invisible inside one
// run. A baseline set pools several runs, so a new run inside their spread is
// noise and one far below all of them is still a regression.
TEST(Compare, BaselineSetPoolsRunsSoRunLevelShiftsAreNoise) {
  const auto dir = test::scratch_dir() / "baselines" / "ci";
  int i = 0;
  for (double level : {1.0, 0.92, 1.08}) {
    const auto run_dir = dir / ("2026112" + std::to_string(i) + "-run");
    std::filesystem::create_directories(run_dir);
    write_jsonl(make_run("base" + std::to_string(i), 40 + i, level, 5), run_dir / "records.jsonl");
    ++i;
  }
  const LoadedRun set = load_run(dir.string(), "/nonexistent.sqlite");
  EXPECT_EQ(set.pooled_runs, 3);
  EXPECT_EQ(set.records.size(), 18u);
  CompareOptions options;
  options.metrics = {Metric::kTg};
  const Comparison inside = compare_runs(set, make_run("new", 50, 0.94, 5), options);
  EXPECT_EQ(inside.regressions, 0) << comparison_markdown(inside);
  EXPECT_EQ(inside.points.at(0).metrics.at(0).n_base, 15);
  EXPECT_EQ(inside.duplicates, 0);
  // The same new run against the fastest single run alone looks like a regression.
  LoadedRun fastest;
  fastest.records = read_records_jsonl(dir / "20261122-run" / "records.jsonl");
  EXPECT_GT(compare_runs(fastest, make_run("new", 50, 0.94, 5), options).regressions, 0);
  const Comparison below = compare_runs(set, make_run("slow", 51, 0.7, 5), options);
  EXPECT_EQ(below.regressions, 6);
}

TEST(Compare, CliExitsFourOnlyOnARealRegression) {
  const auto dir = test::scratch_dir();
  write_jsonl(make_run("base", 11, 1.0, 6, 0.005), dir / "base.jsonl");
  write_jsonl(make_run("rerun", 12, 1.0, 6, 0.005), dir / "rerun.jsonl");
  write_jsonl(make_run("slow", 13, 0.9, 6, 0.005), dir / "slow.jsonl");
  write_jsonl(make_run("noisy", 14, 1.0, 3, 0.10), dir / "noisy.jsonl");
  const std::string db = " --db '" + (dir / "none.sqlite").string() + "'";
  auto r = test::run_cli("compare " + (dir / "base.jsonl").string() + " " +
                         (dir / "slow.jsonl").string() + db);
  EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
  EXPECT_NE(r.out.find("**REGRESSION**"), std::string::npos) << r.out;
  r = test::run_cli("compare " + (dir / "base.jsonl").string() + " " +
                    (dir / "rerun.jsonl").string() + db);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  r = test::run_cli("compare " + (dir / "base.jsonl").string() + " " +
                    (dir / "slow.jsonl").string() + db + " --metric pp --json");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["regressions"], 0);
  EXPECT_EQ(j["points"].size(), 6u);
  r = test::run_cli("compare " + (dir / "base.jsonl").string() + " " +
                    (dir / "slow.jsonl").string() + db + " --threshold 15");
  EXPECT_EQ(r.exit_code, 0) << "a 10% slowdown is under a 15% threshold: " << r.out;
  // Three noisy samples a side cannot see 5%: inconclusive (5), never a pass.
  r = test::run_cli("compare " + (dir / "base.jsonl").string() + " " +
                    (dir / "noisy.jsonl").string() + db);
  EXPECT_EQ(r.exit_code, 5) << r.out << r.err;
  EXPECT_NE(r.out.find("**Gate: inconclusive: this run cannot detect a 5% regression"),
            std::string::npos)
      << r.out;
  EXPECT_NE(test::squeezed(r.out).find("| MDE |"), std::string::npos)
      << "a terminal's table: " << r.out;
  // --wide: every column, the MDE beside each ratio; --out: the same into a file.
  const std::string out_file = (dir / "compare.md").string();
  r = test::run_cli("compare " + (dir / "base.jsonl").string() + " " +
                    (dir / "noisy.jsonl").string() + db + " --wide --out '" + out_file + "'");
  EXPECT_EQ(r.exit_code, 5) << r.out << r.err;
  EXPECT_NE(r.out.find("], MDE "), std::string::npos) << r.out;
  EXPECT_EQ(test::slurp(out_file), r.out);
  r = test::run_cli("compare " + (dir / "base.jsonl").string() + " " +
                    (dir / "noisy.jsonl").string() + db + " --family bogus");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
}

// Issue 44, item 5: a base run with one TG sample edited to 1e308 t/s was
// taken; its cells showed "0.000 [nan, -nan]" and the gate passed (exit 0).
// A sample beyond any engine's rate is refused when read, and a NaN in a
// ratio or interval never reaches a verdict.
TEST(Compare, ASampleBeyondAnyEnginesRateIsRefusedWhenRead) {
  const auto dir = test::scratch_dir();
  LoadedRun base = make_run("base", 21, 1.0, 6, 0.005);
  base.records[0].tg.tokens_per_s[0] = 1e308;
  write_jsonl(base, dir / "base.jsonl");
  write_jsonl(make_run("rerun", 22, 1.0, 6, 0.005), dir / "rerun.jsonl");
  const auto r = test::run_cli("compare " + (dir / "base.jsonl").string() + " " +
                               (dir / "rerun.jsonl").string() + " --db '" +
                               (dir / "none.sqlite").string() + "'");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("base.jsonl:1: the tg phase has a sample of 1e+308 tokens per second, "
                       "beyond any engine's"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("nan"), std::string::npos) << r.out;
}

TEST(Compare, ANanInARatioOrIntervalIsNoVerdict) {
  MetricComparison m;
  m.n_base = m.n_new = 6;
  m.ratio = 0.5;
  m.ratio_lo = std::nan("");
  m.ratio_hi = -std::nan("");
  m.spread = {std::nan(""), 10, 6, 6};
  m.p_family = 0.001;  // "significant": a regression, were the NaN let through
  set_verdict(m, 0.05, 0.05);
  EXPECT_EQ(m.verdict, Verdict::kUntestable);
  EXPECT_EQ(ratio_cell(m), "0.500");
  m = {};
  m.n_base = m.n_new = 6;
  m.ratio = std::nan("");
  m.ratio_lo = m.ratio_hi = 1;
  set_verdict(m, 0.05, 0.05);
  EXPECT_EQ(m.verdict, Verdict::kUntestable);
  EXPECT_EQ(ratio_cell(m), "-");
}

}  // namespace
}  // namespace moesweep
