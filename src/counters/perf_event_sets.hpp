#pragma once
// Opening what a backend counts: the software events on every thread of this
// process, and a profile's hardware events, uncore ones system-wide on the
// CPUs of each PMU's cpumask and core ones per thread.
#include <string>
#include <vector>

#include "counters/counter_profile.hpp"
#include "counters/event_counters.hpp"
#include "counters/sysfs_pmu.hpp"

namespace moesweep::counters {

// TASK_CLOCK_NS, CONTEXT_SWITCHES, CPU_MIGRATIONS, PAGE_FAULTS on `tids`.
void open_software_events(EventCounters& into, const std::vector<int>& tids);

// The profile's events of one scope. `no_pmu_context` is appended to the reason
// when a PMU is missing from sysfs (e.g. "hardware probe: ENOENT ...").
void open_profile_events(EventCounters& into, const CounterProfile& profile, const SysfsPmus& pmus,
                         EventScope scope, const std::vector<int>& tids,
                         const std::string& no_pmu_context);

}  // namespace moesweep::counters
