// A real sweep of the tiny twin with a planned stream co-tenant beside the
// engine (-C 0, the co-tenant on the CPUs left): every record carries its
// memory facts (the engine's KV buffer checked against kv_bytes_per_token x
// n_ctx, the peak RSS, the model file's mapping), the co-tenant's own
// throughput, each phase's energy or why there is none, and the tables show
// the co-tenant's columns and the memory table. Then an unplanned co-tenant
// (a compute load this test starts on the sweep's CPU) must be flagged.
#include <gtest/gtest.h>

#include "gguf.h"

#include <fstream>
#include <sstream>

#include "hw/topology.hpp"
#include "results/run_source.hpp"
#include "support/test_support.hpp"
#include "sweep/cotenant.hpp"

namespace moesweep {
namespace {

// Where a GGUF's tensor data starts: everything before it is header.
uint64_t gguf_header_bytes(const std::string& path) {
  gguf_init_params params{true, nullptr};
  gguf_context* ctx = gguf_init_from_file(path.c_str(), params);
  if (!ctx) return 0;
  const uint64_t offset = gguf_get_data_offset(ctx);
  gguf_free(ctx);
  return offset;
}

constexpr double kMiB = 1024.0 * 1024;

std::string sweep_args(const std::string& extra) {
  return "sweep -m kimi-k2.5 -q Q4_K_S --scale tiny -t 1 -C 0 --depths 0,64 -c 256 -ub 64 -n 8 "
         "-r 2 -ctk q8_0 -ctv q8_0 -fa on --counters none --no-db " +
         extra;
}

const test::SharedRun& planned_run() {
  static const test::SharedRun run =
      test::shared_cli_run("sweep-cotenant", sweep_args("--cotenant none,stream"));
  return run;
}

std::vector<Record> records_of(const std::filesystem::path& out_dir) {
  return read_records_jsonl(test::only_run_dir(out_dir) / "records.jsonl");
}

TEST(SweepFacts, EveryRecordCarriesItsMemoryAndTheKvFigureMatchesTheFormula) {
  ASSERT_EQ(planned_run().cli.exit_code, 0) << planned_run().cli.err;
  const auto records = records_of(planned_run().out_dir);
  ASSERT_EQ(records.size(), 4u);  // 2 depths x (alone, beside stream)
  for (const Record& r : records) {
    const MemoryFacts& m = r.memory;
    ASSERT_TRUE(m.kv && m.kv_expected) << r.params.key_string();
    // The engine logs MiB with two decimals.
    EXPECT_NEAR(static_cast<double>(*m.kv), static_cast<double>(*m.kv_expected), 0.006 * kMiB);
    ASSERT_TRUE(m.compute);
    EXPECT_GT(*m.compute, 0u);
    ASSERT_TRUE(m.peak_rss && m.rss_rollup);
    EXPECT_GT(*m.peak_rss, *m.kv);
    ASSERT_TRUE(m.model_mapped && m.model_mapped_engine) << m.unavailable.dump();
    // The cross-check: smaps' mapping of the file against the engine's own
    // figure, its mapped data section. They differ by the GGUF's header and
    // the few small tensors the engine copies instead of mapping: within 0.1%
    // of the model, and the log's rounding to 0.01 MiB.
    const double mapped = static_cast<double>(*m.model_mapped);
    EXPECT_NEAR(
        mapped,
        static_cast<double>(*m.model_mapped_engine + gguf_header_bytes(r.params.model_path)),
        0.001 * mapped + 0.006 * kMiB);
    EXPECT_LE(*m.model_mapped, std::filesystem::file_size(r.params.model_path));
    EXPECT_LE(*m.model_resident, *m.model_mapped);
    EXPECT_TRUE(m.available_before_load && m.available_after_load);
  }
}

TEST(SweepFacts, ThePlannedCotenantRecordsItsThroughputBesideThePoint) {
  ASSERT_EQ(planned_run().cli.exit_code, 0) << planned_run().cli.err;
  int beside = 0;
  for (const Record& r : records_of(planned_run().out_dir)) {
    if (r.params.cotenant.empty()) {
      EXPECT_TRUE(r.cotenant.empty());
      continue;
    }
    ++beside;
    EXPECT_EQ(r.params.cotenant, "stream");
    EXPECT_EQ(r.cotenant["kind"], "stream");
    EXPECT_EQ(r.cotenant["cpus"], cotenant_cpus_for("0", "", nullptr).empty()
                                      ? ""
                                      : cpu_list_text(cotenant_cpus_for("0", "", nullptr)));
    ASSERT_TRUE(r.cotenant["throughput"].is_number()) << r.cotenant.dump();
    EXPECT_GT(r.cotenant["throughput"].get<double>(), 0);
    EXPECT_NE(r.params.key_string().find("cotenant=stream"), std::string::npos);
  }
  EXPECT_EQ(beside, 2);
}

TEST(SweepFacts, EachPhaseHasItsEnergyOrTheReason) {
  ASSERT_EQ(planned_run().cli.exit_code, 0) << planned_run().cli.err;
  for (const Record& r : records_of(planned_run().out_dir))
    for (const PhaseResult* phase : {&r.pp, &r.tg}) {
      const nlohmann::json e = phase->counters.value("package_energy_j", nlohmann::json());
      EXPECT_TRUE(e.is_number() || (e.is_object() && e.contains("unavailable"))) << e.dump();
    }
}

TEST(SweepFacts, TablesShowTheCotenantColumnsAndTheMemoryTable) {
  // stdout: a terminal's columns; tables.md: every column (issue 48).
  const std::string& out = planned_run().cli.out;
  EXPECT_NE(test::squeezed(out).find("| TG beside stream |"), std::string::npos) << out;
  EXPECT_NE(out.find("## memory"), std::string::npos) << out;
  EXPECT_NE(out.find("KV vs expected"), std::string::npos) << out;
  EXPECT_NE(out.find("`+`: other processes"), std::string::npos) << out;
  const std::string file = test::slurp(test::only_run_dir(planned_run().out_dir) / "tables.md");
  EXPECT_NE(test::squeezed(file).find("| TG t/s beside stream | stream itself |"),
            std::string::npos)
      << file;
  EXPECT_NE(file.find("KV engine vs expected"), std::string::npos) << file;
}

TEST(SweepFacts, DryRunPrintsEachContextsMemoryAndAPlanThatCannotFitSaysSo) {
  test::tiny_twin();
  auto r = test::run_cli(sweep_args("--cotenant none,compute --dry-run"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("memory (file): model "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1/1@0+compute"), std::string::npos) << r.out;
}

// 16M tokens without flash attention: the attention scores of one 512-token
// ubatch alone are 512 x 16M x 9 heads x 4 bytes = 309 GB.
TEST(SweepFacts, AContextThatCannotFitIsRefusedBeforeTheModelLoads) {
  test::tiny_twin();
  const std::string args =
      "sweep -m kimi-k2.5 -q Q4_K_S --scale tiny -t 1 --depths 0 -c 16000000 -ub 512 -fa off "
      "-n 8 -r 1 --counters none --no-db ";
  auto r = test::run_cli(args + "--dry-run");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("DOES NOT FIT: this context needs"), std::string::npos) << r.out;
  const auto dir = test::scratch_dir();
  r = test::run_cli(args + "--quiet --out-dir " + (dir / "runs").string());
  EXPECT_EQ(r.exit_code, 3) << r.err;  // its points failed; nothing crashed
  const auto records = records_of(dir / "runs");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_NE(records[0].error.find("this context needs"), std::string::npos) << records[0].error;
  const auto meta = nlohmann::json::parse(
      std::ifstream(test::only_run_dir(dir / "runs") / "meta.json"), nullptr, false);
  EXPECT_TRUE(meta.value("models", nlohmann::json::array()).empty())
      << "a model was loaded: " << meta.dump();
}

// The unplanned co-tenant: a compute load on the sweep's own CPU that the
// point did not ask for takes about half of that CPU: the point is flagged.
// Samples of a quarter second make the point last seconds: a flag also needs
// more than 4 ticks of others' time, which a 0.1 s point (one call of -n 8 a
// sample) reached only by chance (it once read 4: 36% of the CPU, unflagged).
TEST(SweepFacts, AnUnplannedCotenantOnThePointsCpuIsFlagged) {
  test::tiny_twin();
  const auto dir = test::scratch_dir();
  CotenantProcess intruder("compute", {0}, MOESWEEP_CLI);
  const auto r = test::run_cli(
      sweep_args("--min-sample-time 0.25 --quiet --out-dir " + (dir / "runs").string()));
  intruder.stop();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto records = records_of(dir / "runs");
  ASSERT_FALSE(records.empty());
  for (const Record& r : records) {
    ASSERT_TRUE(r.noise["others_fraction"].is_number()) << r.noise.dump();
    EXPECT_TRUE(r.noise["others_flagged"].get<bool>()) << r.noise.dump();
  }
  EXPECT_NE(r.out.find(" +"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace moesweep
