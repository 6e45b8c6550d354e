// Per-token truth end to end (issue 46), on the real engine worker and a
// tiny twin's GGUF: a sweep with --trace-routing times every generated token of
// every TG sample (tokens.jsonl: -n times per call, one call per sample),
// summarises them in each record exactly as the side file says, runs a
// traced pass of the same tokens at the same positions beside each sample,
// exports them as CSV, and `l3 RUN --per-token` fits them; a damaged side
// file is exit 2, a pass that decoded other tokens is left out and counted.
// --token-times off and ab: the sample's calls timed whole only (all, or
// every other pair), the cost of the per-token timing in the record.
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "analysis/routing_trace.hpp"
#include "experiments/per_token_l3.hpp"
#include "results/run_source.hpp"
#include "results/token_file.hpp"
#include "results/token_times.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

constexpr int kGen = 8, kReps = 3;

const std::filesystem::path& traced_run() {
  static const std::filesystem::path dir = [] {
    // A GGUF given with -m, as a real model is.
    const std::filesystem::path gguf = test::tiny_twin_of("qwen3-moe");
    const test::SharedRun run = test::shared_cli_run(
        "per-token", "sweep -m " + test::shell_quoted(gguf) +
                         " -t 1 --depths 0,16 -c 256 -p 16 -n 8 -r 3 --counters none --no-db "
                         "--quiet --trace-routing");
    EXPECT_EQ(run.cli.exit_code, 0) << run.cli.err;
    return test::only_run_dir(run.out_dir);
  }();
  return dir;
}

TEST(PerToken, EveryTgSampleTimesEachOfItsTokens) {
  const TokenFile f = read_token_file(traced_run() / kTokenFileName);
  std::map<std::string, int> timed, passes;
  for (const TokenCall& c : f.calls) {
    EXPECT_EQ(c.tokens.size(), static_cast<size_t>(kGen));
    EXPECT_EQ(c.ns.size(), static_cast<size_t>(kGen));  // -n times per call
    ++(c.timed() ? timed : passes)[c.key];
    EXPECT_EQ(c.trace_file.rfind("routing-c0-", 0), 0u) << c.trace_file;
  }
  const std::vector<Record> records = read_records_jsonl(traced_run() / "records.jsonl");
  ASSERT_EQ(records.size(), 2u);  // depths 0 and 16
  for (const Record& r : records) {
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(timed[r.params.key_string()], kReps);   // one call per sample: no --min-sample-time
    EXPECT_EQ(passes[r.params.key_string()], kReps);  // and one traced pass beside each
    const nlohmann::json& p = r.extra.routing_pass;
    EXPECT_EQ(p["passes"], kReps);
    EXPECT_TRUE(p["same_tokens_and_positions"].get<bool>());
  }
}

TEST(PerToken, TheRecordsSummaryIsTheSideFiles) {
  const TokenFile f = read_token_file(traced_run() / kTokenFileName);
  for (const Record& r : read_records_jsonl(traced_run() / "records.jsonl")) {
    std::vector<std::vector<int64_t>> calls;
    for (const TokenCall& c : f.calls)
      if (c.timed() && c.key == r.params.key_string()) calls.push_back(c.ns);
    const nlohmann::json want = to_json(summarize_token_times(calls));
    const nlohmann::json& got = r.extra.token_times;
    EXPECT_EQ(got["tokens"], kGen * kReps);
    for (const char* k : {"p50_ms", "p90_ms", "p99_ms", "max_ms", "mean_ms"})
      EXPECT_NEAR(got[k].get<double>(), want[k].get<double>(), 1e-9) << k;
    EXPECT_NEAR(got["slope_us_per_position"].get<double>(),
                want["slope_us_per_position"].get<double>(), 1e-6);
    // The token times of a sample add up to no more than its time (samples.jsonl's).
    double sum = 0;
    for (int64_t t : calls.front()) sum += static_cast<double>(t) * 1e-9;
    EXPECT_LE(sum, r.tg.seconds.front() * (1 + 1e-6));
  }
}

TEST(PerToken, TheTracedPassesAreInTheTraceWhereTheFileSays) {
  const TokenFile f = read_token_file(traced_run() / kTokenFileName);
  const RoutingTrace t = read_routing_trace(traced_run() / f.calls.front().trace_file);
  for (const TokenCall& c : f.calls) {
    ASSERT_GE(c.trace_step, 0);
    ASSERT_LE(c.trace_step, static_cast<int64_t>(t.steps.size()));
    if (c.timed()) continue;
    // The pass's first step is the first MoE layer of its first generated token.
    const TraceStep& s = t.steps[c.trace_step];
    EXPECT_EQ(s.phase, TracePhase::kGeneration);
    EXPECT_EQ(s.n_tokens, 1u);
  }
}

TEST(PerToken, ExportsTokensAsCsvAndRefusesADamagedFile) {
  const test::CommandResult r =
      test::run_cli("export '" + traced_run().string() + "' --format tokens-csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t rows = 0;
  for (char ch : r.out) rows += ch == '\n';
  EXPECT_EQ(rows, 1u + 2u * kReps * kGen * 2);  // header; 2 points x reps x (timed + pass)
  const auto broken = test::scratch_dir() / "broken-run";
  std::filesystem::create_directories(broken);
  std::ofstream(broken / kTokenFileName) << R"({"point":0,"key":"k","kind":"timed","tokens":[1],)"
                                            R"("ns":[1,2]})"
                                            "\n";
  const test::CommandResult bad =
      test::run_cli("export '" + broken.string() + "' --format tokens-csv");
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("tokens.jsonl:1"), std::string::npos) << bad.err;
}

TEST(PerToken, TheReportHasTheTableAndThePlots) {
  const auto out = test::scratch_dir() / "report";
  const test::CommandResult r =
      test::run_cli("report '" + traced_run().string() + "' --out '" + out.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string md = test::slurp(out / "report.md");
  EXPECT_NE(md.find("## Per-token decode times"), std::string::npos) << md;
  EXPECT_NE(md.find("t=1 N_KV=16"), std::string::npos) << md;
  // scripts/setup --for test installs matplotlib: both figures are drawn
  EXPECT_TRUE(std::filesystem::exists(out / "token_time_vs_position.png")) << md;
  EXPECT_TRUE(std::filesystem::exists(out / "token_latency_hist.png")) << md;
}

// A copy of the traced run this test may change (the shared one is read by
// the other tests, each its own process).
std::filesystem::path copy_of_traced_run(const std::string& name) {
  const auto dir = test::scratch_dir() / name;
  std::filesystem::copy(traced_run(), dir, std::filesystem::copy_options::recursive);
  return dir;
}

TEST(PerToken, TheL3CommandWritesTheFitAndRefusesWhatItCannotFit) {
  const auto run = copy_of_traced_run("l3-cli");
  const test::CommandResult r =
      test::run_cli("l3 " + test::shell_quoted(run) + " --per-token --bootstrap 19 --no-plot");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("answer: "), std::string::npos) << r.out;
  const nlohmann::json j =
      nlohmann::json::parse(test::slurp(run / "l3_per_token" / "per_token.json"));
  EXPECT_EQ(j.at("timed_calls"), 2 * kReps);
  EXPECT_EQ(j.at("fit").at("bootstrap"), 19);
  EXPECT_FALSE(j.at("fit").at("verdict").get<std::string>().empty());
  // A run with no simulated counts, --simulated without --per-token, a trace
  // file instead of a run.
  for (const std::string& args :
       {test::shell_quoted(run) + " --per-token --simulated --no-plot",
        test::shell_quoted(run) + " --simulated --no-plot",
        test::shell_quoted(run / read_token_file(run / kTokenFileName).calls[0].trace_file) +
            " --per-token"}) {
    const test::CommandResult bad = test::run_cli("l3 " + args);
    EXPECT_EQ(bad.exit_code, 2) << args << "\n" << bad.out << bad.err;
  }
}

TEST(PerToken, APassOfOtherTokensIsLeftOutAndCounted) {
  const auto run = copy_of_traced_run("mismatched-pass");
  std::vector<std::string> lines = test::read_lines(run / kTokenFileName);
  for (std::string& line : lines) {
    nlohmann::json call = nlohmann::json::parse(line);
    if (call.at("kind") != "routing") continue;
    call["inputs"] = "0000000000000000";  // the worker's hash of another sequence
    line = call.dump();
    break;
  }
  std::ofstream out(run / kTokenFileName, std::ios::trunc);
  for (const std::string& line : lines) out << line << '\n';
  out.close();
  PerTokenOptions o;
  o.bootstrap = 0;
  const PerTokenL3 p = per_token_l3(run, o);
  EXPECT_EQ(p.mismatched, 1u);
  EXPECT_EQ(p.fitted_calls, p.timed_calls - 1);
}

TEST(PerToken, TheFitReadsTheRunTokenByToken) {
  PerTokenOptions o;
  o.bootstrap = 49;
  o.interrupted_factor = 0;  // every token: the count below is exact
  const PerTokenL3 p = per_token_l3(traced_run(), o);
  EXPECT_EQ(p.timed_calls, 2u * kReps);
  EXPECT_EQ(p.fitted_calls, 2u * kReps);
  EXPECT_EQ(p.without_pass + p.mismatched, 0u);
  EXPECT_EQ(p.fit.tokens, 2u * kReps * kGen);
  EXPECT_EQ(p.points, 2u);
  EXPECT_EQ(p.points_repeatable, 2u);  // the engine routes a sequence alike every time
  EXPECT_FALSE(p.fit.verdict.empty());
}

// --token-times off: no call is timed token by token, nothing in the record.
// ab: repetitions 0 and 3 of 4 are (ABBA), 1 and 2 timed whole only, and the
// record says how much faster the whole-only ones ran, with its MDE.
TEST(PerToken, TokenTimesOffAndAb) {
  const std::filesystem::path gguf = test::tiny_twin_of("qwen3-moe");
  const std::string sweep = "sweep -m " + test::shell_quoted(gguf) +
                            " -t 1 --depths 0 -c 128 -p 8 -n 8 -r 4 --counters none --no-db "
                            "--quiet --token-times ";
  const test::SharedRun off = test::shared_cli_run("token-times-off", sweep + "off");
  ASSERT_EQ(off.cli.exit_code, 0) << off.cli.err;
  const auto off_dir = test::only_run_dir(off.out_dir);
  const std::vector<Record> off_records = read_records_jsonl(off_dir / "records.jsonl");
  ASSERT_EQ(off_records.size(), 1u);
  EXPECT_TRUE(off_records[0].extra.token_times.is_null());
  EXPECT_TRUE(!std::filesystem::exists(off_dir / kTokenFileName) ||
              read_token_file(off_dir / kTokenFileName).calls.empty());

  const test::SharedRun ab = test::shared_cli_run("token-times-ab", sweep + "ab");
  ASSERT_EQ(ab.cli.exit_code, 0) << ab.cli.err;
  const auto ab_dir = test::only_run_dir(ab.out_dir);
  const TokenFile f = read_token_file(ab_dir / kTokenFileName);
  std::vector<int> reps;
  for (const TokenCall& c : f.calls) reps.push_back(c.rep);
  EXPECT_EQ(reps, (std::vector<int>{0, 3}));  // the whole-only calls have no line
  const std::vector<Record> records = read_records_jsonl(ab_dir / "records.jsonl");
  ASSERT_EQ(records.size(), 1u);
  const nlohmann::json& t = records[0].extra.token_times;
  EXPECT_EQ(t.at("tokens"), 2 * 8);
  EXPECT_EQ(t.at("ab").at("pairs"), 2);
  for (const char* k : {"faster_pct", "ci95_pct", "mde_pct", "p_value"})
    EXPECT_TRUE(t.at("ab").contains(k)) << k;
}

}  // namespace
}  // namespace moesweep
