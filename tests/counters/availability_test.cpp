// Honesty on the machine the tests run on: hardware metrics are numbers only
// where the hardware counts them; otherwise each says why. likwid on a CPU it
// does not know fails cleanly with its own reason.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <regex>

#include "counter_test_data.hpp"
#include "counters/advice.hpp"
#include "counters/backends.hpp"
#include "counters/derived_metrics.hpp"
#include "counters/likwid_backend.hpp"
#include "counters/perf_backend.hpp"
#include "counters/perf_event.hpp"
#include "counters/sysfs_pmu.hpp"
#include "honest_counters.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep::counters {
namespace {

nlohmann::json one_phase(CounterBackend& backend) {
  auto s = backend.session("tg", "availability/tg");
  s->start();
  s->stop(0.01, 1);
  return s->result();
}

// What this machine's detected profile and PMUs say, whatever the CPU: the same
// checks run over every recorded tree in recorded_sysfs_test.cpp.
TEST(LiveMachine, PerfHardwareMetricsAreNumbersOrHonestlyUnavailable) {
  PerfBackend backend(CounterOptions{});
  const nlohmann::json availability = backend.metric_availability();
  const auto r = one_phase(backend);
  honest::expect_hardware_metrics_honest(r, availability, "this machine");
  honest::expect_reasons_explained_by_profile(r, backend.profile(), "this machine");
  const bool any_pmu =
      backend.profile() && honest::profile_pmus_present(*backend.profile(), SysfsPmus("/sys"));
  if (!hardware_pmu_probe().empty() && !any_pmu) {
    // No cycles and none of the profile's PMUs (a VM without a PMU): nothing is measurable.
    for (const std::string& name : hardware_metric_names())
      EXPECT_TRUE(availability[name].is_object()) << name << availability.dump(2);
  }
  if (hardware_pmu_probe().empty() && any_pmu && has_perfmon_capability()) {
    // Bare metal with a profile and permission: L3 must really be counted.
    ASSERT_TRUE(r["l3_misses_per_token"].is_number()) << r.dump(2);
  }
}

// Why cycles cannot be counted, as this machine says it: a VM whose sysfs has
// no core PMU fails with ENOENT; elsewhere (perf_event_paranoid=3, a missing
// driver) the errno is named, whichever it is.
TEST(LiveMachine, PerfProbeFailureNamesTheErrno) {
  const std::string probe = hardware_pmu_probe();
  if (probe.empty()) GTEST_SKIP() << "this machine counts cycles";
  EXPECT_TRUE(std::regex_search(probe, std::regex("failed with E[A-Z]+"))) << probe;
  const bool no_core_pmu = !SysfsPmus("/sys").find("cpu") && !SysfsPmus("/sys").find("cpu_core");
  if (read_cpu_identity().hypervisor && no_core_pmu) {
    EXPECT_NE(probe.find("ENOENT"), std::string::npos) << probe;
  }
}

TEST(LiveMachine, SoftwareMetricsAlwaysMeasured) {
  PerfBackend backend(CounterOptions{});
  const auto availability = backend.metric_availability();
  for (const auto& def : software_metric_defs())
    EXPECT_EQ(availability[def.name], "measurable") << def.name << availability.dump(2);
  const auto r = one_phase(backend);
  EXPECT_TRUE(r["task_clock_s"].is_number());
}

TEST(LiveMachine, LikwidReportsUnsupportedCpuCleanly) {
  testing::internal::CaptureStderr();
  LikwidBackend likwid(CounterOptions{});
  const nlohmann::json d = likwid.describe();
  const auto r = one_phase(likwid);
  const std::string leaked = testing::internal::GetCapturedStderr();
  if (likwid.usable()) GTEST_SKIP() << "likwid supports this CPU: " << d.dump();
  EXPECT_FALSE(likwid.unavailable_reason().empty());
  EXPECT_TRUE(d["perfmon"].contains("unavailable")) << d.dump(2);
  for (const std::string& name : hardware_metric_names())
    EXPECT_EQ(r[name]["unavailable"], likwid.unavailable_reason()) << name;
  EXPECT_TRUE(r["task_clock_s"].is_number()) << "software metrics still come from perf_event";
  // liblikwid's own stderr chatter is captured into the reason, not leaked.
  EXPECT_EQ(leaked.find("Unsupported"), std::string::npos) << leaked;
}

// A liblikwid older than this CPU's profile asks for names the version the
// profile gives (Zen 5: 5.5.0), whatever the family.
TEST(LiveMachine, LikwidTooOldNamesTheVersionTheProfileNeeds) {
  LikwidBackend likwid(CounterOptions{});
  const PerfBackend perf(CounterOptions{});
  const std::string loaded = loaded_likwid_version();
  if (!perf.profile() || loaded.empty()) GTEST_SKIP() << "no profile or no liblikwid here";
  const std::string needed = perf.profile()->likwid_min_version;
  if (needed.empty() || compare_versions(loaded, needed) >= 0)
    GTEST_SKIP() << "liblikwid " << loaded << " is new enough for " << perf.profile()->name;
  ASSERT_FALSE(likwid.usable());
  const auto advice = likwid.advice();
  ASSERT_FALSE(advice.empty());
  EXPECT_NE(advice[0].find(">= " + needed), std::string::npos) << advice[0];
}

TEST(LiveMachine, LikwidInitOnAnUnknownCpuRunsInAChildAndCannotKillUs) {
  // Skips the version shortcut: liblikwid 5.2.2 on Zen 5 exit()s during
  // perfmon_init (access-daemon timeout, ~10 s); the forked probe absorbs that.
  if (loaded_likwid_version().empty()) GTEST_SKIP() << "built without liblikwid";
  ::setenv("MOESWEEP_LIKWID_FORCE_PROBE", "1", 1);
  testing::internal::CaptureStderr();
  LikwidBackend likwid(CounterOptions{});
  const std::string leaked = testing::internal::GetCapturedStderr();
  ::unsetenv("MOESWEEP_LIKWID_FORCE_PROBE");
  if (likwid.usable()) GTEST_SKIP() << "likwid supports this CPU";
  EXPECT_NE(likwid.unavailable_reason().find("likwid"), std::string::npos)
      << likwid.unavailable_reason();
  EXPECT_EQ(leaked.find("Unsupported"), std::string::npos) << leaked;
}

TEST(Factory, ChoicesAndUnknownChoice) {
  EXPECT_EQ(make_counter_backend("none", CounterOptions{})->name(), "none");
  EXPECT_EQ(make_counter_backend("perf", CounterOptions{})->name(), "perf");
  EXPECT_EQ(make_counter_backend("likwid", CounterOptions{})->name(), "likwid");
  EXPECT_THROW(make_counter_backend("papi", CounterOptions{}), UserError);
}

TEST(Factory, AutoSaysWhyItChose) {
  const auto backend = make_counter_backend("auto", CounterOptions{});
  const auto d = backend->describe();
  EXPECT_EQ(d["why"].get<std::string>().rfind("auto:", 0), 0u) << d.dump(2);
  const std::string why = d["why"];
  if (!hardware_pmu_probe().empty() && backend->name() == "perf" && !likwid_marker_mode() &&
      why.find("reaches this CPU's hardware counters") == std::string::npos) {
    // No hardware counters through perf_event, and likwid did not take over:
    // software events only, with the reasons and what to do.
    EXPECT_NE(d["why"].get<std::string>().find("no hardware counters"), std::string::npos)
        << d.dump(2);
    EXPECT_FALSE(d["advice"].empty());
  }
}

TEST(Advice, VersionComparison) {
  EXPECT_LT(compare_versions("5.2", "5.5.0"), 0);
  EXPECT_EQ(compare_versions("5.5", "5.5.0"), 0);
  EXPECT_GT(compare_versions("5.10.1", "5.5.0"), 0);
}

TEST(Cli, CountersCommandListsPmusAndReasons) {
  const auto r = test::run_cli("counters");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("task_clock_s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("l3_hit_rate"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--counters auto chooses"), std::string::npos) << r.out;
  const auto j = test::run_cli("counters --json");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_TRUE(doc["perf"]["metrics"].contains("dram_read_gbps"));
}

TEST(Cli, CountersCommandReadsARecordedMachine) {
  const auto r = test::run_cli("counters --sysfs-root " + (kSysfs / "intel-spr").string() +
                               " --cpuinfo " + (kSysfs / "intel-spr" / "proc-cpuinfo").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("intel-spr.json"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("uncore_imc_0"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace moesweep::counters
