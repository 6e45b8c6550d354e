// Honesty on the machine the tests run on: hardware metrics are numbers only
// where the hardware counts them; otherwise each says why. likwid on a CPU it
// does not know fails cleanly with its own reason.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "counters/advice.hpp"
#include "counters/backends.hpp"
#include "counters/derived_metrics.hpp"
#include "counters/likwid_backend.hpp"
#include "counters/perf_backend.hpp"
#include "counters/perf_event.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep::counters {
namespace {

const std::filesystem::path kSysfs = std::filesystem::path(MOESWEEP_TEST_DATA) / "sysfs";

CounterOptions quiet_options() {
  CounterOptions o;
  o.print_advice = false;
  return o;
}

nlohmann::json one_phase(CounterBackend& backend) {
  auto s = backend.session("tg", "availability/tg");
  s->start();
  s->stop(0.01, 1);
  return s->result();
}

TEST(LiveMachine, PerfHardwareMetricsAreNumbersOrHonestlyUnavailable) {
  PerfBackend backend(quiet_options());
  const auto r = one_phase(backend);
  const std::string probe = hardware_pmu_probe();
  const bool have_uncore = std::filesystem::exists("/sys/bus/event_source/devices/amd_l3") ||
                           std::filesystem::exists("/sys/bus/event_source/devices/uncore_imc_0");
  for (const std::string& name : hardware_metric_names()) {
    ASSERT_TRUE(r.contains(name)) << name;
    if (!probe.empty() && !have_uncore) {
      // This VM: no PMU. The reason names the missing PMU or the ENOENT.
      ASSERT_TRUE(r[name].is_object()) << name << " = " << r[name].dump();
      const std::string why = r[name]["unavailable"];
      EXPECT_TRUE(why.find("not found") != std::string::npos ||
                  why.find("ENOENT") != std::string::npos ||
                  why.find("no counter profile") != std::string::npos)
          << why;
    } else if (r[name].is_object()) {
      EXPECT_FALSE(r[name]["unavailable"].get<std::string>().empty()) << name;
    }
  }
  if (probe.empty() && have_uncore && backend.profile() && has_perfmon_capability()) {
    // Bare metal with a profile and permission: L3 must really be counted.
    ASSERT_TRUE(r["l3_misses_per_token"].is_number()) << r.dump(2);
  }
}

TEST(LiveMachine, PerfProbeOnThisVmFailsWithEnoent) {
  const std::string probe = hardware_pmu_probe();
  if (probe.empty()) GTEST_SKIP() << "this machine has a hardware PMU";
  EXPECT_NE(probe.find("ENOENT"), std::string::npos) << probe;
}

TEST(LiveMachine, SoftwareMetricsAlwaysMeasured) {
  PerfBackend backend(quiet_options());
  const auto availability = backend.metric_availability();
  for (const auto& def : software_metric_defs())
    EXPECT_EQ(availability[def.name], "measurable") << def.name << availability.dump(2);
  const auto r = one_phase(backend);
  EXPECT_TRUE(r["task_clock_s"].is_number());
}

TEST(LiveMachine, LikwidReportsUnsupportedCpuCleanly) {
  testing::internal::CaptureStderr();
  LikwidBackend likwid(quiet_options());
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

TEST(LiveMachine, LikwidOnZen5NamesTheVersionItNeeds) {
  LikwidBackend likwid(quiet_options());
  if (likwid.usable() || loaded_likwid_version().empty()) GTEST_SKIP();
  const CpuIdentity cpu = read_cpu_identity();
  if (cpu.vendor != "AuthenticAMD" || cpu.family != 26) GTEST_SKIP() << "not a Zen 5";
  const auto advice = likwid.advice();
  ASSERT_FALSE(advice.empty());
  EXPECT_NE(advice[0].find(">= 5.5.0"), std::string::npos) << advice[0];
}

TEST(LiveMachine, LikwidInitOnAnUnknownCpuRunsInAChildAndCannotKillUs) {
  // Skips the version shortcut: liblikwid 5.2.2 on Zen 5 exit()s during
  // perfmon_init (access-daemon timeout, ~10 s); the forked probe absorbs that.
  if (loaded_likwid_version().empty()) GTEST_SKIP() << "built without liblikwid";
  ::setenv("MOESWEEP_LIKWID_FORCE_PROBE", "1", 1);
  testing::internal::CaptureStderr();
  LikwidBackend likwid(quiet_options());
  const std::string leaked = testing::internal::GetCapturedStderr();
  ::unsetenv("MOESWEEP_LIKWID_FORCE_PROBE");
  if (likwid.usable()) GTEST_SKIP() << "likwid supports this CPU";
  EXPECT_NE(likwid.unavailable_reason().find("likwid"), std::string::npos)
      << likwid.unavailable_reason();
  EXPECT_EQ(leaked.find("Unsupported"), std::string::npos) << leaked;
}

TEST(RecordedSysfs, KvmGuestHasNoUncorePmusAndSaysSo) {
  CounterOptions o = quiet_options();
  o.sysfs_root = kSysfs / "kvm-guest";
  o.cpuinfo = kSysfs / "kvm-guest" / "proc-cpuinfo";
  PerfBackend backend(o);
  ASSERT_TRUE(backend.profile());
  EXPECT_EQ(backend.profile()->name, "amd-zen5");
  const auto r = one_phase(backend);
  for (const std::string& name : hardware_metric_names()) {
    ASSERT_TRUE(r[name].is_object()) << name;
    EXPECT_NE(r[name]["unavailable"].get<std::string>().find("not found"), std::string::npos)
        << r[name];
  }
  EXPECT_TRUE(r["task_clock_s"].is_number());
  EXPECT_FALSE(backend.advice().empty());
}

TEST(RecordedSysfs, Zen5CopyIsEncodedButNeverOpened) {
  CounterOptions o = quiet_options();
  o.sysfs_root = kSysfs / "amd-zen5";
  o.cpuinfo = kSysfs / "amd-zen5" / "proc-cpuinfo";
  PerfBackend backend(o);
  const auto availability = backend.metric_availability();
  const std::string why = availability["l3_hit_rate"]["unavailable"];
  EXPECT_NE(why.find("recorded sysfs copy"), std::string::npos) << why;
  EXPECT_NE(why.find("0xfe04"), std::string::npos) << why;  // L3_HITS encoded
}

TEST(Factory, ChoicesAndUnknownChoice) {
  EXPECT_EQ(make_counter_backend("none", quiet_options())->name(), "none");
  EXPECT_EQ(make_counter_backend("perf", quiet_options())->name(), "perf");
  EXPECT_EQ(make_counter_backend("likwid", quiet_options())->name(), "likwid");
  EXPECT_THROW(make_counter_backend("papi", quiet_options()), UserError);
}

TEST(Factory, AutoSaysWhyItChose) {
  const auto backend = make_counter_backend("auto", quiet_options());
  const auto d = backend->describe();
  EXPECT_EQ(d["why"].get<std::string>().rfind("auto:", 0), 0u) << d.dump(2);
  if (!hardware_pmu_probe().empty()) {
    EXPECT_EQ(backend->name(), "perf");  // software events only, with the reasons
    EXPECT_FALSE(d["advice"].empty());
  }
}

TEST(Advice, PrintedAtMostOncePerProcess) {
  testing::internal::CaptureStderr();
  print_advice_once({"try the sysctl"});
  print_advice_once({"try the sysctl"});
  const std::string err = testing::internal::GetCapturedStderr();
  const auto first = err.find("try the sysctl");
  EXPECT_EQ(err.find("try the sysctl", first == std::string::npos ? 0 : first + 1),
            std::string::npos);
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
