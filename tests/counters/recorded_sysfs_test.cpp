// Every recorded machine in tests/data/sysfs (Zen 3/4/5, SPR, GNR, a VM with no
// PMU) goes through the same availability and sweep-counter checks, so every
// family is tested on whatever machine runs the suite. The trees are copies of
// real sysfs text; their events are encoded and planned, never opened here.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "counter_test_data.hpp"
#include "counters/backends.hpp"
#include "counters/derived_metrics.hpp"
#include "counters/perf_backend.hpp"
#include "counters/perf_event_sets.hpp"
#include "honest_counters.hpp"
#include "support/test_support.hpp"
#include "util/paths.hpp"

namespace moesweep::counters {
namespace {

// A text's words, one space apart: a line the terminal wrapped reads the same.
std::string words_of(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool space = c == ' ' || c == '\n';
    if (!space)
      out += c;
    else if (!out.empty() && out.back() != ' ')
      out += ' ';
  }
  return out;
}
namespace fs = std::filesystem;

std::vector<std::string> recorded_trees() {
  std::vector<std::string> trees;
  for (const auto& e : fs::directory_iterator(kSysfs))
    if (e.is_directory()) trees.push_back(e.path().filename().string());
  std::sort(trees.begin(), trees.end());
  return trees;
}

CounterOptions recorded(const fs::path& tree) {
  CounterOptions o;
  o.sysfs_root = tree;
  o.cpuinfo = tree / "proc-cpuinfo";
  return o;
}

nlohmann::json one_recorded_phase(CounterBackend& backend) {
  auto s = backend.session("tg", "recorded/tg");
  s->start();
  s->stop(0.01, 1);
  return s->result();
}

class RecordedSysfsMachine : public ::testing::TestWithParam<std::string> {
 protected:
  fs::path tree() const { return kSysfs / GetParam(); }
  // The profile the code's own CPU detection picks for the recorded cpuinfo
  // (none for a CPU no profile claims, as on the Intel development VM).
  std::optional<CounterProfile> expected_profile() const {
    return find_counter_profile(profiles_dir() / "counters",
                                read_cpu_identity(tree() / "proc-cpuinfo"));
  }
};

TEST_P(RecordedSysfsMachine, AvailabilityFollowsTheProfileAndTheRecordedPmus) {
  const auto profile = expected_profile();
  PerfBackend backend(recorded(tree()));
  ASSERT_EQ(backend.profile().has_value(), profile.has_value());
  if (profile) {
    EXPECT_EQ(backend.profile()->name, profile->name);
  }
  const nlohmann::json availability = backend.metric_availability();
  const nlohmann::json r = one_recorded_phase(backend);
  honest::expect_hardware_metrics_honest(r, availability, GetParam());
  honest::expect_reasons_explained_by_profile(r, backend.profile(), GetParam());
  if (profile) honest::expect_recorded_tree_reasons(r, *profile, SysfsPmus(tree()), GetParam());
  // The advice speaks of the recorded machine, not of this kernel.
  const auto advice = backend.advice();
  ASSERT_FALSE(advice.empty());
  EXPECT_NE(advice[0].find("recorded sysfs copy"), std::string::npos) << advice[0];
  const bool vm_without_pmu =
      read_cpu_identity(tree() / "proc-cpuinfo").hypervisor && !SysfsPmus(tree()).find("cpu");
  bool says_vm = false, says_sim = false;
  for (const auto& line : advice) {
    says_vm = says_vm || line.find("virtual machine") != std::string::npos;
    says_sim = says_sim || line.find("`--counters sim`") != std::string::npos;
  }
  EXPECT_EQ(says_vm, vm_without_pmu && profile.has_value()) << GetParam();
  // Where the PMU is missing, the one backend that counts anyway (issue 48).
  if (says_vm) {
    EXPECT_TRUE(says_sim) << GetParam();
  }
  // Never opened: no hardware metric of another machine becomes a number here.
  for (const std::string& name : hardware_metric_names())
    EXPECT_TRUE(r[name].is_object()) << name << " = " << r[name].dump();
  EXPECT_TRUE(r["task_clock_s"].is_number());
}

// One counter per PMU instance, field map and cpumask CPU: the counts a live
// run sums per event (per CCX for amd_l3, per channel for amd_umc_N / IMCs).
TEST_P(RecordedSysfsMachine, PlanHasOneCounterPerInstanceFieldMapAndCpu) {
  const auto found = expected_profile();
  if (!found) GTEST_SKIP() << GetParam() << ": no profile claims this CPU, nothing to plan";
  const CounterProfile& profile = *found;
  const SysfsPmus pmus(tree());
  const EventPlan plan = plan_profile_events(profile, pmus, EventScope::kSystem, "");
  for (const auto& [name, event] : profile.events) {
    if (event.scope != EventScope::kSystem) continue;
    std::size_t expected = 0;
    for (const PmuInfo& pmu : pmus.match(event.pmu))
      expected += event.sum_of.size() * pmu.cpumask.size();
    // (clang 14 cannot capture a structured binding: an init-capture names it)
    const auto planned = std::count_if(
        plan.counters.begin(), plan.counters.end(),
        [&event_name = name](const PlannedCounter& c) { return c.event == event_name; });
    EXPECT_EQ(static_cast<std::size_t>(planned), expected) << GetParam() << " " << name;
    EXPECT_EQ(plan.unavailable.count(name), expected == 0 ? 1u : 0u) << GetParam() << " " << name;
  }
}

// A real sweep (tiny twin, real engine) pointed at the recorded tree: the
// records carry software numbers and exactly the reasons the run's own
// meta.json gives, explained by the tree's profile and PMUs; the advice
// meta.json records is said on stderr, each line once (not per point).
TEST_P(RecordedSysfsMachine, SweepRecordsSoftwareNumbersAndTheTreesReasons) {
  const auto profile = expected_profile();
  const auto twin = moesweep::test::tiny_twin();
  const auto out = moesweep::test::scratch_dir() / "runs";  // run_shell keeps _cmd/ beside it
  const auto r = moesweep::test::run_shell(
      "MOESWEEP_COUNTERS_SYSFS_ROOT=" + tree().string() +
      " MOESWEEP_COUNTERS_CPUINFO=" + (tree() / "proc-cpuinfo").string() + " " +
      std::string(MOESWEEP_CLI) + " sweep --model " + twin.string() +
      " --threads 1 --ctx-size 256 --n-prompt 32 --depths 0 --n-gen 4 --repetitions 1"
      " --counters perf --no-db --out-dir " +
      out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int records = 0;
  for (const auto& run : fs::directory_iterator(out)) {
    const auto meta = nlohmann::json::parse(std::ifstream(run.path() / "meta.json"));
    const nlohmann::json& advice = meta["counters"]["advice"];
    ASSERT_FALSE(advice.empty()) << "every recorded tree has advice (see the test above)";
    // The note is wrapped to the terminal's 120 columns: compared word by word.
    const std::string err = words_of(r.err);
    for (const auto& line : advice) {
      const std::string said = words_of("[sweep] counters: " + line.get<std::string>());
      const size_t at = err.find(said);
      ASSERT_NE(at, std::string::npos) << said << "\nnot in:\n" << r.err;
      EXPECT_EQ(err.find(said, at + 1), std::string::npos) << said << " twice";
    }
    ASSERT_EQ(meta["counters"]["profile"], profile ? nlohmann::json(profile->name) : nullptr)
        << meta["counters"].dump(2);
    std::ifstream in(run.path() / "records.jsonl");
    for (std::string line; std::getline(in, line);) {
      if (line.empty()) continue;
      const auto record = nlohmann::json::parse(line);
      ++records;
      for (const char* phase : {"pp_phase", "tg_phase"}) {
        const auto& c = record[phase]["counters"];
        for (const auto& def : software_metric_defs())
          EXPECT_TRUE(c[def.name].is_number()) << phase << " " << def.name;
        const std::string where = GetParam() + " " + phase;
        honest::expect_hardware_metrics_honest(c, meta["counters"]["metrics"], where);
        honest::expect_reasons_explained_by_profile(c, profile, where);
        if (profile) honest::expect_recorded_tree_reasons(c, *profile, SysfsPmus(tree()), where);
      }
    }
  }
  EXPECT_GT(records, 0);
}

INSTANTIATE_TEST_SUITE_P(EveryRecordedTree, RecordedSysfsMachine,
                         ::testing::ValuesIn(recorded_trees()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// What a sweep's backend reads when pointed at a recorded machine (the
// environment the sweep test above sets), checked without the engine.
TEST(RecordedSysfs, EnvironmentPointsTheSweepsBackendAtARecordedMachine) {
  const fs::path tree = kSysfs / "intel-gnr";
  ::setenv("MOESWEEP_COUNTERS_SYSFS_ROOT", tree.c_str(), 1);
  ::setenv("MOESWEEP_COUNTERS_CPUINFO", (tree / "proc-cpuinfo").c_str(), 1);
  testing::internal::CaptureStderr();
  const nlohmann::json d = make_counter_backend("perf")->describe();
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "") << "the counters library prints nothing";
  ::unsetenv("MOESWEEP_COUNTERS_SYSFS_ROOT");
  ::unsetenv("MOESWEEP_COUNTERS_CPUINFO");
  EXPECT_EQ(d["profile"], "intel-gnr");
  EXPECT_EQ(d["pmus"], nlohmann::json(SysfsPmus(tree).names()));
  const std::string why = d["metrics"]["dram_read_gbps"]["unavailable"];
  EXPECT_NE(why.find("recorded sysfs copy"), std::string::npos) << why;
}

TEST(RecordedSysfs, TreesCoverEveryShippedProfileAndAVmWithoutPmu) {
  std::set<std::string> covered;
  bool vm_without_pmu = false;
  for (const std::string& t : recorded_trees()) {
    const CpuIdentity cpu = read_cpu_identity(kSysfs / t / "proc-cpuinfo");
    if (auto p = find_counter_profile(profiles_dir() / "counters", cpu)) covered.insert(p->name);
    vm_without_pmu = vm_without_pmu || (cpu.hypervisor && !SysfsPmus(kSysfs / t).find("cpu"));
  }
  for (const auto& e : fs::directory_iterator(profiles_dir() / "counters"))
    EXPECT_TRUE(covered.count(e.path().stem().string())) << e.path().stem() << " has no tree";
  EXPECT_TRUE(vm_without_pmu);
}

}  // namespace
}  // namespace moesweep::counters
