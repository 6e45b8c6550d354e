// The acceptance check on the engine: a real sweep on the tiny twin with
// --counters auto records software metrics as numbers and every hardware
// metric as a number or an explained "unavailable" — never an invented value.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "counters/counter_profile.hpp"
#include "counters/derived_metrics.hpp"
#include "honest_counters.hpp"
#include "support/test_support.hpp"

namespace moesweep::counters {
namespace {

std::vector<nlohmann::json> read_records(const std::filesystem::path& out_dir) {
  std::vector<nlohmann::json> records;
  for (const auto& run : std::filesystem::directory_iterator(out_dir)) {
    std::ifstream in(run.path() / "records.jsonl");
    std::string line;
    while (std::getline(in, line))
      if (!line.empty()) records.push_back(nlohmann::json::parse(line));
  }
  return records;
}

nlohmann::json read_meta(const std::filesystem::path& out_dir) {
  for (const auto& run : std::filesystem::directory_iterator(out_dir))
    if (std::filesystem::exists(run.path() / "meta.json"))
      return nlohmann::json::parse(std::ifstream(run.path() / "meta.json"));
  return {};
}

TEST(EngineSweep, AutoCountersRecordSoftwareNumbersAndHonestHardware) {
  const auto twin = test::tiny_twin();
  const auto out = test::scratch_dir();
  const auto r = test::run_cli("sweep --model " + twin.string() +
                               " --threads 1 --ctx-size 1024 --depths 0 --n-gen 8 --repetitions 2"
                               " --counters auto --no-db --quiet --out-dir " +
                               out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto records = read_records(out);
  ASSERT_FALSE(records.empty());
  // What the run itself detected here (backend, profile, availability), not
  // what one CPU family would say.
  const nlohmann::json counters = read_meta(out)["counters"];
  const std::optional<CounterProfile> profile =
      find_counter_profile(default_counter_profile_dir(), read_cpu_identity());
  for (const auto& record : records) {
    for (const char* phase : {"pp_phase", "tg_phase"}) {
      ASSERT_TRUE(record.contains(phase)) << record.dump();
      const auto& c = record[phase]["counters"];
      for (const auto& def : software_metric_defs())
        ASSERT_TRUE(c[def.name].is_number()) << phase << " " << def.name << " " << c.dump(2);
      EXPECT_GT(c["task_clock_s"].get<double>(), 0);
      honest::expect_hardware_metrics_honest(c, counters["metrics"], phase);
      if (counters["backend"] == "perf")
        honest::expect_reasons_explained_by_profile(c, profile, phase);
    }
  }
}

// Under likwid-perfctr -m every phase becomes a marker region. likwid-perfctr
// cannot run on a CPU its likwid does not know (this VM), so this checks the
// other half: with the marker environment set, the sweep still runs and
// records; with a working likwid-perfctr the regions land in its report.
TEST(EngineSweep, LikwidMarkerEnvironmentKeepsTheSweepWorking) {
  const auto twin = test::tiny_twin();
  const auto out = test::scratch_dir();
  const auto r = test::run_shell(
      "LIKWID_FILEPATH=" + (out / "likwid-markers.txt").string() + " " + std::string(MOESWEEP_CLI) +
      " sweep --model " + twin.string() +
      " --threads 1 --ctx-size 1024 --depths 0 --n-gen 4 --repetitions 1 --counters auto --no-db"
      " --quiet --out-dir " +
      out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto records = read_records(out);
  ASSERT_FALSE(records.empty());
  EXPECT_TRUE(records[0]["tg_phase"]["counters"]["task_clock_s"].is_number());
}

}  // namespace
}  // namespace moesweep::counters
