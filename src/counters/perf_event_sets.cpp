#include "counters/perf_event_sets.hpp"

#include <fmt/format.h>

#include <optional>
#include <stdexcept>

#include "counters/derived_metrics.hpp"

namespace moesweep::counters {

void open_software_events(EventCounters& into, const std::vector<int>& tids) {
  struct SoftwareEvent {
    const char* name;
    std::uint64_t config;
    bool happens_in_kernel;  // reads 0 when only user space may be counted
  };
  static constexpr SoftwareEvent kEvents[] = {
      {kTaskClockNs, PERF_COUNT_SW_TASK_CLOCK, false},
      {kContextSwitches, PERF_COUNT_SW_CONTEXT_SWITCHES, true},
      {kCpuMigrations, PERF_COUNT_SW_CPU_MIGRATIONS, true},
      {kPageFaults, PERF_COUNT_SW_PAGE_FAULTS, false},
  };
  for (const SoftwareEvent& e : kEvents) {
    ThreadAttachResult attached =
        open_on_threads(counting_attr(PERF_TYPE_SOFTWARE, e.config), tids);
    if (attached.error) {
      into.mark_unavailable(e.name, "perf_event_open: " + attached.error->reason);
      continue;
    }
    if (attached.user_space_only && e.happens_in_kernel) {
      into.mark_unavailable(
          e.name, fmt::format("perf_event_paranoid={} allows user-space counting only, and {} "
                              "happen in the kernel (lower the sysctl to 1 or grant CAP_PERFMON)",
                              read_perf_event_paranoid().value_or(-1), e.name));
    }
    for (PerfFd& fd : attached.fds) into.add(e.name, std::move(fd));
  }
}

namespace {

// One counter per field map (sum_of) and per CPU of the cpumask (system
// scope) or one per field map (thread scope, opened on every thread later).
void plan_on_pmu(EventPlan& plan, const EventDef& event, const PmuInfo& pmu) {
  if (!pmu.type) {
    plan.unavailable.emplace(event.name, fmt::format("PMU {} has no type file", pmu.name));
    return;
  }
  if (event.scope == EventScope::kSystem && pmu.cpumask.empty()) {
    plan.unavailable.emplace(event.name, fmt::format("PMU {} has no cpumask: not an uncore PMU, "
                                                     "cannot count it system-wide",
                                                     pmu.name));
    return;
  }
  for (const auto& fields : event.sum_of) {
    RawConfig raw;
    try {
      raw = encode_raw_config(pmu, fields);
    } catch (const std::invalid_argument& e) {
      plan.unavailable.emplace(event.name,
                               fmt::format("cannot encode for {}: {}", pmu.name, e.what()));
      return;
    }
    PlannedCounter c{event.name, pmu.name, counting_attr(*pmu.type, raw.config), -1};
    c.attr.config1 = raw.config1;
    c.attr.config2 = raw.config2;
    if (event.scope == EventScope::kThread) {
      plan.counters.push_back(c);
      continue;
    }
    for (const int cpu : pmu.cpumask) {
      c.cpu = cpu;
      plan.counters.push_back(c);
    }
  }
}

}  // namespace

EventPlan plan_profile_events(const CounterProfile& profile, const SysfsPmus& pmus,
                              EventScope scope, const std::string& no_pmu_context) {
  EventPlan plan;
  for (const auto& [name, event] : profile.events) {
    if (event.scope != scope) continue;
    const std::vector<PmuInfo> instances = pmus.match(event.pmu);
    if (instances.empty()) {
      plan.unavailable.emplace(
          name, fmt::format("PMU {} not found in {}{}", event.pmu,
                            (pmus.root() / "bus/event_source/devices").string(), no_pmu_context));
      continue;
    }
    for (const PmuInfo& pmu : instances) plan_on_pmu(plan, event, pmu);
  }
  return plan;
}

void open_event_plan(EventCounters& into, const EventPlan& plan, const std::vector<int>& tids,
                     const PerfOpener& opener) {
  for (const auto& [event, reason] : plan.unavailable) into.mark_unavailable(event, reason);
  for (const PlannedCounter& c : plan.counters) {
    if (plan.unavailable.count(c.event) || into.unavailable().count(c.event)) continue;
    if (c.cpu >= 0) {
      auto opened = opener(c.attr, -1, c.cpu);
      if (auto* err = std::get_if<PerfOpenError>(&opened)) {
        into.mark_unavailable(c.event, fmt::format("perf_event_open({} config={:#x}, cpu {}): {}",
                                                   c.pmu, c.attr.config, c.cpu, err->reason));
        continue;
      }
      into.add(c.event, std::move(std::get<PerfFd>(opened)));
      continue;
    }
    ThreadAttachResult attached = open_on_threads(c.attr, tids);
    if (attached.error) {
      into.mark_unavailable(c.event, fmt::format("perf_event_open({} config={:#x}): {}", c.pmu,
                                                 c.attr.config, attached.error->reason));
      continue;
    }
    for (PerfFd& fd : attached.fds) into.add(c.event, std::move(fd));
  }
}

void open_profile_events(EventCounters& into, const CounterProfile& profile, const SysfsPmus& pmus,
                         EventScope scope, const std::vector<int>& tids,
                         const std::string& no_pmu_context) {
  const EventPlan plan = plan_profile_events(profile, pmus, scope, no_pmu_context);
  if (pmus.root() == "/sys") {
    open_event_plan(into, plan, tids);
    return;
  }
  for (const auto& [event, reason] : plan.unavailable) into.mark_unavailable(event, reason);
  for (const PlannedCounter& c : plan.counters)  // the first counter of each event is shown
    into.mark_unavailable(c.event, fmt::format("{} comes from a recorded sysfs copy ({}): encoded "
                                               "as config={:#x} but not opened on this machine",
                                               c.pmu, pmus.root().string(), c.attr.config));
}

}  // namespace moesweep::counters
