// --counters sim on the real engine: the worker runs under valgrind's
// callgrind (installed by scripts/setup --for test) on the tiny twin, and
// every phase gets exact per-token counts. No test asserts a count or a time
// that one CPU family gives: only what any run must show (numbers where
// counted, two runs alike, a larger LL missing less, the refusals).
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <signal.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "counters/sim_backend.hpp"
#include "results/count_compare.hpp"
#include "support/test_support.hpp"

namespace moesweep::counters {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// One point, two repetitions, a few tokens: about half a minute under valgrind.
const std::string kPoint =
    "sweep -m kimi-k2.5 --scale tiny -t 1 -c 512 -d 0 -p 32 -n 8 -r 2 --counters sim --no-db "
    "--quiet";

std::vector<json> records_of(const fs::path& run) {
  std::vector<json> out;
  for (const std::string& line : test::read_lines(run / "records.jsonl"))
    out.push_back(json::parse(line));
  return out;
}

fs::path sim_run(const std::string& name, const std::string& extra = "") {
  if (find_valgrind().empty())
    ADD_FAILURE() << "valgrind is not installed: scripts/setup --for test";
  const test::SharedRun run = test::shared_cli_run(name, kPoint + extra);
  EXPECT_EQ(run.cli.exit_code, 0) << run.cli.out << run.cli.err;
  return test::only_run_dir(run.out_dir);
}

double tg(const fs::path& run, const char* field) {
  return records_of(run).at(0).at("tg_phase").at("counters").at(field).get<double>();
}

TEST(SimSweep, EveryPhaseGetsPerTokenCounts) {
  const fs::path run = sim_run("sim-a");
  const std::vector<json> records = records_of(run);
  ASSERT_EQ(records.size(), 1u);
  for (const char* phase : {"pp_phase", "tg_phase"}) {
    const json& c = records[0].at(phase).at("counters");
    for (const std::string& name : simulated_metric_names()) {
      ASSERT_TRUE(c.at(name).is_number()) << phase << " " << name << ": " << c.dump(1);
      EXPECT_GT(c[name].get<double>(), 0) << phase << " " << name;
      EXPECT_EQ(c.at("sources").at(name), "simulated");
    }
    EXPECT_LE(c["ll_hit_rate"].get<double>(), 1.0);
    EXPECT_EQ(c.at("simulated").at("cache"), "LL 32 MiB 16-way");
    EXPECT_EQ(c["simulated"].at("repetitions"), 2);  // one callgrind dump per timed repetition
    EXPECT_EQ(c["simulated"].at("per_repetition").at("instructions_per_token").size(), 2u);
    EXPECT_DOUBLE_EQ(c["dram_bytes_per_token"].get<double>(),
                     c["ll_misses_per_token"].get<double>() * 64);
  }
  // The CPU variant that ran under valgrind is the record's (valgrind has no AVX-512).
  EXPECT_FALSE(records[0].at("extra").at("engine").at("cpu_variant").get<std::string>().empty());
  const json meta = json::parse(std::ifstream(run / "meta.json"));
  EXPECT_EQ(meta.at("counters").at("backend"), "sim");
  std::ifstream tables(run / "tables.md");
  const std::string text((std::istreambuf_iterator<char>(tables)), {});
  EXPECT_NE(text.find("counts per token (simulated, LL 32 MiB 16-way)"), std::string::npos) << text;
  const fs::path report_dir = test::scratch_dir() / "report";
  const auto report =
      test::run_cli("report '" + run.string() + "' --no-plots --out '" + report_dir.string() + "'");
  ASSERT_EQ(report.exit_code, 0) << report.err;
  std::ifstream md(report_dir / "report.md");
  const std::string report_text((std::istreambuf_iterator<char>(md)), {});
  EXPECT_NE(report_text.find("## Counters (simulated, LL 32 MiB 16-way)"), std::string::npos)
      << report_text;
}

TEST(SimSweep, TwoRunsCountAlikeWithinTheTolerance) {
  const fs::path a = sim_run("sim-a"), b = sim_run("sim-b");
  const auto r = test::run_cli("compare '" + a.string() + "' '" + b.string() +
                               "' --metric instructions,data_reads,data_writes,d1_misses,ll_misses,"
                               "dram_bytes");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("No count grew"), std::string::npos) << r.out;
}

TEST(SimSweep, APlantedOnePercentIsMoreWorkAndExit4) {
  // The planted work (engine/worker/context_decode.cpp), sized from the
  // measured count: 6 instructions an iteration, 1% of a generated token's.
  const fs::path a = sim_run("sim-a");
  const double per_token = tg(a, "instructions_per_token");
  const long iterations = std::lround(0.01 * per_token / 6);
  const fs::path out = test::scratch_dir();
  const auto planted =
      test::run_shell(fmt::format("env MOESWEEP_PLANTED_TG_WORK={} {} {} --out-dir '{}'",
                                  iterations, MOESWEEP_CLI, kPoint, out.string()));
  ASSERT_EQ(planted.exit_code, 0) << planted.out << planted.err;
  const fs::path b = test::only_run_dir(out);
  const double growth = tg(b, "instructions_per_token") / per_token - 1;
  EXPECT_GT(growth, 0.005);
  EXPECT_LT(growth, 0.02);
  const auto r = test::run_cli("compare '" + a.string() + "' '" + b.string() +
                               "' --metric instructions,ll_misses");
  EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
  EXPECT_NE(r.out.find("MORE WORK"), std::string::npos) << r.out;
  // The other way round it is less work, which is no regression.
  const auto back = test::run_cli("compare '" + b.string() + "' '" + a.string() +
                                  "' --metric instructions,ll_misses");
  EXPECT_EQ(back.exit_code, 0) << back.out << back.err;
}

TEST(SimSweep, ALargerLastLevelCacheMissesLess) {
  // The tiny twin's weights (several MiB) fit a 256 MiB LL, not a 1 MiB one.
  const fs::path small = sim_run("sim-ll1", " --sim-cache 'LL=1MiB,16'");
  const fs::path large = sim_run("sim-ll256", " --sim-cache 'LL=256MiB,16'");
  EXPECT_GT(tg(small, "ll_misses_per_token"), 2 * tg(large, "ll_misses_per_token"));
  EXPECT_LT(tg(small, "ll_hit_rate"), tg(large, "ll_hit_rate"));
  // The same instructions: only the simulated cache differs.
  EXPECT_NEAR(tg(small, "instructions_per_token") / tg(large, "instructions_per_token"), 1, 1e-3);
  // Counts of different caches are not compared.
  const auto r =
      test::run_cli("compare '" + small.string() + "' '" + large.string() + "' --metric ll_misses");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
}

// --sim-per-token (issue 46): every generated token a dump of its own, its
// counts in tokens.jsonl; they add up to (a little less than: the call's
// last lines are the phase's own dump) the phase's counts in the record.
TEST(SimSweep, PerTokenDumpsAddUpToThePhase) {
  const fs::path run = sim_run("sim-per-token", " --sim-per-token");
  const std::vector<json> records = records_of(run);
  const json& c = records.at(0).at("tg_phase").at("counters");
  EXPECT_EQ(c.at("simulated").at("repetitions"), 2);
  const double phase_misses = c.at("ll_misses_per_token").get<double>() * 8 * 2;
  double token_misses = 0;
  int timed = 0;
  for (const std::string& line : test::read_lines(run / "tokens.jsonl")) {
    const json call = json::parse(line);
    if (call.at("kind") != "timed") continue;
    ++timed;
    ASSERT_EQ(call.at("sim").at("ll_misses").size(), 8u) << line;
    ASSERT_EQ(call.at("sim").at("instructions").size(), 8u) << line;
    for (const json& m : call.at("sim").at("ll_misses")) token_misses += m.get<double>();
  }
  EXPECT_EQ(timed, 2);
  EXPECT_LE(token_misses, phase_misses);
  EXPECT_GT(token_misses, 0.9 * phase_misses);
  const auto refused = test::run_cli(
      "sweep -m kimi-k2.5 --scale tiny -t 1 -d 0 -n 8 --counters none --sim-per-token --dry-run");
  EXPECT_EQ(refused.exit_code, 2) << refused.err;  // sim only
  EXPECT_NE(refused.err.find("--sim-per-token"), std::string::npos) << refused.err;
}

// The total instructions callgrind_annotate reads in a dump ("33,935,535
// (100.0%)  PROGRAM TOTALS"); fails the test when it cannot read the dump or
// cannot tell its functions apart (a dump that leaves their names to an
// earlier one puts all the cost in one).
double annotated_instructions(const fs::path& dump) {
  const auto r =
      test::run_shell("callgrind_annotate --threshold=100 --show=Ir " + test::shell_quoted(dump));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(":ggml_"), std::string::npos) << "no ggml function in " << dump << r.out;
  const size_t totals = r.out.find("PROGRAM TOTALS");
  if (totals == std::string::npos) {
    ADD_FAILURE() << "no PROGRAM TOTALS in callgrind_annotate " << dump << ":\n" << r.out;
    return 0;
  }
  const size_t line = r.out.rfind('\n', totals) + 1;
  std::string digits;
  for (size_t i = line; i < totals && r.out[i] != ' '; ++i)
    if (r.out[i] != ',') digits += r.out[i];
  return std::stod(digits);
}

// --sim-keep-dumps: each timed phase's callgrind dump stays in the run's
// callgrind/ folder, named in the record, and is whole: callgrind_annotate
// reads it (per function: what bisect points at), and the dumps of a phase
// add up to the instructions in its record.
TEST(SimSweep, KeptDumpsAreWholeAndAddUpToTheRecord) {
  const fs::path run = sim_run("sim-keep", " --sim-keep-dumps");
  const json record = records_of(run).at(0);
  for (const char* phase : {"pp_phase", "tg_phase"}) {
    SCOPED_TRACE(phase);
    const json& sim = record.at(phase).at("counters").at("simulated");
    ASSERT_EQ(sim.at("dumps").size(), 2u) << sim.dump(1);  // one per timed repetition
    double instructions = 0;
    for (const json& name : sim["dumps"]) {
      EXPECT_EQ(name.get<std::string>().rfind("callgrind/p", 0), 0u) << name;
      ASSERT_TRUE(fs::is_regular_file(run / name.get<std::string>())) << name;
      instructions += annotated_instructions(run / name.get<std::string>());
    }
    // callgrind_annotate shows the dump's summary line, which can be a few
    // instructions off the per-function totals the record sums.
    EXPECT_NEAR(instructions / sim.at("events").at("Ir").get<double>(), 1, 1e-6);
  }
  const json meta = json::parse(std::ifstream(run / "meta.json"));
  EXPECT_EQ(meta.at("counters").at("dumps_kept"), "callgrind");
  EXPECT_FALSE(fs::exists(sim_run("sim-a") / "callgrind")) << "kept without being asked to";
  const auto refused =
      test::run_cli("sweep -m kimi-k2.5 --scale tiny -t 1 -d 0 -n 8 --sim-keep-dumps --dry-run");
  EXPECT_EQ(refused.exit_code, 2) << refused.err;  // sim only
  EXPECT_NE(refused.err.find("--sim-keep-dumps"), std::string::npos) << refused.err;
}

TEST(SimSweep, WithoutValgrindItIsExit2AndNoRun) {
  const fs::path out = test::scratch_dir();
  const auto r = test::run_shell("env PATH=/nonexistent " + std::string(MOESWEEP_CLI) + " " +
                                 kPoint + " --out-dir '" + out.string() + "'");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("valgrind"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("apt-get install valgrind"), std::string::npos) << r.err;
  EXPECT_TRUE(!fs::exists(out) || fs::is_empty(out));
}

TEST(SimSweep, MoreThanOneThreadIsRefused) {
  for (const char* threads : {"-t 2", "-t 1 -tb 2"}) {
    const auto r = test::run_cli("sweep -m kimi-k2.5 --scale tiny " + std::string(threads) +
                                 " -d 0 -n 8 --counters sim --dry-run");
    EXPECT_EQ(r.exit_code, 2) << threads << r.out << r.err;
    EXPECT_NE(r.err.find("one thread"), std::string::npos) << r.err;
  }
  const auto r =
      test::run_cli("sweep -m kimi-k2.5 --scale tiny -d 0 --sim-cache 'LL=4MiB,16' --dry-run");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;  // --sim-cache without --counters sim
}

// Issue 44, item 7: a cache valgrind refuses (2 GiB and up) was taken, and the
// sweep then said the worker "did not answer as an engine worker".
TEST(SimSweep, ACacheValgrindCannotSimulateIsRefusedBeforeAnything) {
  const fs::path out = test::scratch_dir() / "runs";
  const auto r = test::run_cli(
      "sweep -m kimi-k2.5 --scale tiny -t 1 -d 0 -n 8 --counters sim "
      "--sim-cache 'LL=2GiB,16' --no-db --out-dir '" +
      out.string() + "'");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("the largest cache valgrind simulates"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("engine worker"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

// Issue 44, item 8: Ctrl-C while the worker's hello was pending under valgrind
// exited 130 and left its moesweep-sim-* folder behind. Every temporary
// folder goes on every way out.
TEST(SimSweep, CtrlCWhileTheWorkerStartsUnderValgrindLeavesNoTemporaryFolder) {
  if (find_valgrind().empty()) GTEST_SKIP() << "valgrind is not installed: scripts/setup";
  const fs::path dir = test::scratch_dir();
  fs::create_directories(dir / "tmp");
  const pid_t cli = test::spawn_shell("exec env TMPDIR=" + test::shell_quoted(dir / "tmp") + " " +
                                          test::cli_path() + " " + kPoint + " --out-dir " +
                                          test::shell_quoted(dir / "runs"),
                                      dir / "out", dir / "err");
  ASSERT_GT(cli, 0);
  bool made = false;  // the folder exists: valgrind's worker is being started
  for (int i = 0; i < 6000 && !made; ++i) {
    for (const auto& e : fs::directory_iterator(dir / "tmp"))
      made = made || e.path().filename().string().rfind("moesweep-sim-", 0) == 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(made) << "no moesweep-sim-* folder appeared";
  ASSERT_EQ(::kill(cli, SIGINT), 0);
  EXPECT_EQ(test::wait_exit_code(cli, std::chrono::seconds(60)), 130);
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir / "tmp")) left.push_back(e.path().string());
  EXPECT_TRUE(left.empty()) << fmt::format("{}", fmt::join(left, ", "));
}

TEST(SimSweep, TheDryRunSaysHowMuchSlower) {
  const auto r =
      test::run_cli("sweep -m kimi-k2.5 --scale tiny -t 1 -d 0 -n 8 --counters sim --dry-run");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("slower under valgrind"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace moesweep::counters
