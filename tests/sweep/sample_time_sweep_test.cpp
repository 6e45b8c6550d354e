// sweep --min-sample-time on the tiny twin through the real CLI: every
// sample is whole calls of the plan's -n (-p) at its depth, recorded as run
// beside the plan's tokens (which the key and the sweep-bench tables keep);
// the default comes from this machine's noise profile; a fixed -n is told
// what it costs; a damaged profile is said and passed over. No timing
// is asserted: how many calls a sample takes is the machine's business.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include <cmath>
#include <fstream>

#include "hw/bandwidth_probe.hpp"
#include "hw/noise_profile.hpp"
#include "support/run_records.hpp"
#include "support/sweep_bench_format.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;

std::string quoted(const fs::path& p) {
  std::string q = "'";  // piecewise: GCC 12 warns (-Wrestrict) on "'" + string inlined
  q += p.string();
  q += '\'';
  return q;
}

// The sweep on the tiny twin's file, with `cache` as moesweep's cache (its noise profile).
test::CommandResult sweep(const fs::path& cache, const fs::path& out, const std::string& more) {
  return test::run_shell("MOESWEEP_CACHE_DIR=" + quoted(cache) + " " + test::cli_path() +
                         " sweep -m " + quoted(test::tiny_twin()) +
                         " -t 1 --depths 0,64 -c 256 -ub 64 -p 64 -n 4 -r 2 --counters none "
                         "--no-db --quiet --out-dir " +
                         quoted(out) + " " + more);
}

using test::read_json;

std::vector<nlohmann::json> json_lines(const fs::path& path) {
  std::vector<nlohmann::json> out;
  for (const std::string& line : test::read_lines(path)) out.push_back(nlohmann::json::parse(line));
  return out;
}

// A profile of this machine whose CV stops falling at `seconds` (two TG lengths).
void write_profile(const fs::path& cache, double seconds) {
  NoiseProfile p;
  p.machine_key = machine_key();
  p.measured_at = std::string("2026-01-01T00:00:00Z");
  p.tg = {{16, 1, 0, 10, seconds / 10, 100, 0.20}, {64, 4, 0, 10, seconds, 100, 0.05}};
  fs::create_directories(cache / "hw");
  std::ofstream(cache / "hw" / noise_profile_path().filename()) << to_json(p).dump();
}

TEST(SampleTimeSweep, RecordsThePlannedAndTheRunTokensOfEverySample) {
  const fs::path dir = test::scratch_dir();
  const auto r = sweep(dir / "cache", dir / "runs", "--min-sample-time 0.02");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const fs::path run = test::only_run_dir(dir / "runs");
  const nlohmann::json meta = read_json(run / "meta.json");
  EXPECT_EQ(meta["sample_length"]["min_sample_time_s"], 0.02);
  EXPECT_EQ(meta["sample_length"]["source"], "the sweep's --min-sample-time");
  EXPECT_EQ(meta["spec"]["min_sample_time_s"], 0.02);
  std::map<int, int> tg_run;  // point -> TG tokens a sample ran
  for (const nlohmann::json& rec : json_lines(run / "records.jsonl")) {
    ASSERT_TRUE(rec["ok"].get<bool>()) << rec.dump();
    EXPECT_EQ(rec["tg"], 4);  // the plan's, in the key and the sweep-bench keys
    EXPECT_EQ(rec["pp"], 64);
    for (const auto& [phase, planned] : {std::pair{"tg_phase", 4}, std::pair{"pp_phase", 64}}) {
      const nlohmann::json& p = rec[phase];
      const int run_tokens = p.at("tokens_run").get<int>();
      EXPECT_GE(run_tokens, planned) << phase;
      EXPECT_EQ(run_tokens % planned, 0) << phase << ": whole calls of the plan's tokens";
      // samples_s is each call's time: S = the plan's tokens / it, as sweep-bench's T and S.
      for (size_t i = 0; i < p["samples_s"].size(); ++i)
        EXPECT_NEAR(p["samples_ts"][i].get<double>() * p["samples_s"][i].get<double>(), planned,
                    1e-6 * planned);
    }
    tg_run[rec["point"].get<int>()] = rec["tg_phase"]["tokens_run"].get<int>();
  }
  ASSERT_EQ(tg_run.size(), 2u);
  int tg_samples = 0;  // samples.jsonl: each sample's whole time and tokens as run
  for (const nlohmann::json& s : json_lines(run / "samples.jsonl")) {
    if (s["phase"] != "tg") continue;
    ++tg_samples;
    EXPECT_EQ(s["tokens"], tg_run.at(s["point"].get<int>())) << s.dump();
  }
  EXPECT_EQ(tg_samples, 4);
  // sweep-bench's table shows the plan's TG.
  for (const auto& e : fs::directory_iterator(run / "sweep-bench"))
    for (const std::string& line : test::read_lines(e.path())) {
      const std::vector<std::string> cells = test::pipe_cells(line);
      if (cells.size() == 9 && test::is_number(cells[1])) {
        EXPECT_EQ(cells[2], "4") << line;
      }
    }
}

TEST(SampleTimeSweep, TheDefaultComesFromThisMachinesNoiseProfile) {
  const fs::path dir = test::scratch_dir();
  write_profile(dir / "cache", 0.01);
  const auto r = sweep(dir / "cache", dir / "runs", "");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const fs::path run = test::only_run_dir(dir / "runs");
  const nlohmann::json meta = read_json(run / "meta.json");
  EXPECT_EQ(meta["sample_length"]["min_sample_time_s"], 0.01);
  EXPECT_NE(meta["sample_length"]["source"].get<std::string>().find("noise profile"),
            std::string::npos);
  EXPECT_EQ(meta["noise_profile"]["machine_key"], machine_key());
  EXPECT_FALSE(meta["spec"].contains("min_sample_time_s"));  // the plan as given: shards agree
  for (const nlohmann::json& rec : json_lines(run / "records.jsonl"))
    EXPECT_TRUE(rec["tg_phase"].contains("tokens_run")) << rec.dump();
}

TEST(SampleTimeSweep, AFixedNIsToldWhatItCostsInDetectableChange) {
  const fs::path dir = test::scratch_dir();
  write_profile(dir / "cache", 1000);  // samples of 1000 s would be steadier
  const auto r = sweep(dir / "cache", dir / "runs", "--min-sample-time 0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const fs::path run = test::only_run_dir(dir / "runs");
  const nlohmann::json meta = read_json(run / "meta.json");
  EXPECT_EQ(meta["sample_length"]["min_sample_time_s"], 0);
  const nlohmann::json& cost = meta["sample_length"]["fixed_length_cost"];
  ASSERT_TRUE(cost.is_object()) << meta["sample_length"].dump();
  EXPECT_DOUBLE_EQ(cost["cv"].get<double>(), 0.20);
  EXPECT_DOUBLE_EQ(cost["recommended_cv"].get<double>(), 0.05);
  EXPECT_EQ(cost["repetitions"], 2);
  std::ifstream in(run / "tables.md");
  const std::string tables((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(tables.find("Sample length: TG samples of 4 tokens"), std::string::npos) << tables;
  EXPECT_NE(r.out.find("Sample length:"), std::string::npos) << r.out;  // printed too
  for (const nlohmann::json& rec : json_lines(run / "records.jsonl"))
    EXPECT_FALSE(rec["tg_phase"].contains("tokens_run")) << "one call: as planned";
}

// Issue 44, item 3: a damaged profile (here one with a null speed, as a
// profile of NaNs was once cached) is said and passed over: it must not stop
// every later sweep until the user finds and deletes it.
TEST(SampleTimeSweep, ADamagedProfileIsSaidAndIgnoredAndTheSweepGoesOn) {
  const fs::path dir = test::scratch_dir();
  fs::create_directories(dir / "cache" / "hw");
  const fs::path file = dir / "cache" / "hw" / noise_profile_path().filename();
  write_profile(dir / "cache", 0.01);
  nlohmann::json damaged = read_json(file);
  damaged["tg"][0]["mean_tps"] = nullptr;
  std::ofstream(file) << damaged.dump();
  auto r = sweep(dir / "cache", dir / "runs", "--dry-run");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // The dry run's prose wraps at 120 columns: read as one line.
  const std::string said = std::regex_replace(r.out, std::regex("\n +"), " ");
  EXPECT_NE(said.find("noise profile is unreadable and was ignored"), std::string::npos) << r.out;
  EXPECT_NE(said.find("'tg[0].mean_tps' is null"), std::string::npos) << r.out;
  r = sweep(dir / "cache", dir / "runs", "--quiet");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("noise profile was ignored"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("hw --noise"), std::string::npos) << r.err;
  const nlohmann::json meta = read_json(test::only_run_dir(dir / "runs") / "meta.json");
  EXPECT_TRUE(meta.at("sample_length").contains("profile_problem")) << meta.dump();
  r = sweep(dir / "cache", dir / "runs", "--dry-run --min-sample-time 0.5");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("samples: at least 0.5 s each"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace moesweep
