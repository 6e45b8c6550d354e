#pragma once
// Opening what a backend counts: the software events on every thread of this
// process, and a profile's hardware events, uncore ones system-wide on the
// CPUs of each PMU's cpumask and core ones per thread. Hardware events are
// first planned (encoded, one counter per PMU instance, field map and cpumask
// CPU: per CCX for amd_l3, per channel for amd_umc_N), then opened; the plan
// is what is summed per event, so it can be checked against recorded machines.
#include <functional>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "counters/counter_profile.hpp"
#include "counters/event_counters.hpp"
#include "counters/sysfs_pmu.hpp"

namespace moesweep::counters {

// TASK_CLOCK_NS, CONTEXT_SWITCHES, CPU_MIGRATIONS, PAGE_FAULTS on `tids`.
void open_software_events(EventCounters& into, const std::vector<int>& tids);

struct PlannedCounter {
  std::string event;  // L3_HITS
  std::string pmu;    // amd_l3, amd_umc_3
  perf_event_attr attr{};
  int cpu = -1;  // system scope: the cpumask CPU; thread scope: -1 (every thread)
};

struct EventPlan {
  std::vector<PlannedCounter> counters;
  std::map<std::string, std::string> unavailable;  // event -> why it gets no counter
};

// The profile's events of one scope, encoded through the PMUs' format files.
// `no_pmu_context` is appended to the reason when a PMU is missing from sysfs
// (e.g. "hardware probe: ENOENT ...").
EventPlan plan_profile_events(const CounterProfile& profile, const SysfsPmus& pmus,
                              EventScope scope, const std::string& no_pmu_context);

using PerfOpener =
    std::function<std::variant<PerfFd, PerfOpenError>(const perf_event_attr&, int pid, int cpu)>;

// Opens a plan into `into`: system-wide counters through `opener` (pid -1 on
// their CPU), per-thread ones on `tids` with inherit. An event one of whose
// counters cannot be opened is unavailable with that reason.
void open_event_plan(EventCounters& into, const EventPlan& plan, const std::vector<int>& tids,
                     const PerfOpener& opener = open_perf_event);

// Plans the profile's events of one scope and opens them on a live /sys; a
// recorded sysfs copy of another machine describes PMUs whose type numbers
// mean something else here, so its events are encoded and shown, never opened.
void open_profile_events(EventCounters& into, const CounterProfile& profile, const SysfsPmus& pmus,
                         EventScope scope, const std::vector<int>& tids,
                         const std::string& no_pmu_context);

}  // namespace moesweep::counters
