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

// The attr for one field map of `event` on `pmu`, or nullopt after marking the
// event unavailable. A recorded copy of another machine's sysfs describes PMUs
// whose type numbers mean something else here: encode (so the encoding is
// checked and shown) but never open.
std::optional<perf_event_attr> encoded_attr(EventCounters& into, const EventDef& event,
                                            const PmuInfo& pmu, const SysfsPmus& pmus,
                                            const std::map<std::string, std::uint64_t>& fields) {
  if (!pmu.type) {
    into.mark_unavailable(event.name, fmt::format("PMU {} has no type file", pmu.name));
    return std::nullopt;
  }
  RawConfig raw;
  try {
    raw = encode_raw_config(pmu, fields);
  } catch (const std::invalid_argument& e) {
    into.mark_unavailable(event.name, fmt::format("cannot encode for {}: {}", pmu.name, e.what()));
    return std::nullopt;
  }
  if (pmus.root() != "/sys") {
    into.mark_unavailable(event.name,
                          fmt::format("{} comes from a recorded sysfs copy ({}): encoded as "
                                      "config={:#x} but not opened on this machine",
                                      pmu.name, pmus.root().string(), raw.config));
    return std::nullopt;
  }
  perf_event_attr attr = counting_attr(*pmu.type, raw.config);
  attr.config1 = raw.config1;
  attr.config2 = raw.config2;
  return attr;
}

void open_system_wide(EventCounters& into, const EventDef& event, const PmuInfo& pmu,
                      const SysfsPmus& pmus) {
  if (pmu.cpumask.empty()) {
    into.mark_unavailable(event.name, fmt::format("PMU {} has no cpumask: not an uncore PMU, "
                                                  "cannot count it system-wide",
                                                  pmu.name));
    return;
  }
  for (const auto& fields : event.sum_of) {
    const auto attr = encoded_attr(into, event, pmu, pmus, fields);
    if (!attr) return;
    for (const int cpu : pmu.cpumask) {
      auto opened = open_perf_event(*attr, -1, cpu);
      if (auto* err = std::get_if<PerfOpenError>(&opened)) {
        into.mark_unavailable(event.name,
                              fmt::format("perf_event_open({} config={:#x}, cpu {}): {}", pmu.name,
                                          attr->config, cpu, err->reason));
        return;
      }
      into.add(event.name, std::move(std::get<PerfFd>(opened)));
    }
  }
}

void open_per_thread(EventCounters& into, const EventDef& event, const PmuInfo& pmu,
                     const SysfsPmus& pmus, const std::vector<int>& tids) {
  for (const auto& fields : event.sum_of) {
    const auto attr = encoded_attr(into, event, pmu, pmus, fields);
    if (!attr) return;
    ThreadAttachResult attached = open_on_threads(*attr, tids);
    if (attached.error) {
      into.mark_unavailable(
          event.name, fmt::format("perf_event_open({} config={:#x}): {}", pmu.name, attr->config,
                                  attached.error->reason));
      return;
    }
    for (PerfFd& fd : attached.fds) into.add(event.name, std::move(fd));
  }
}

}  // namespace

void open_profile_events(EventCounters& into, const CounterProfile& profile, const SysfsPmus& pmus,
                         EventScope scope, const std::vector<int>& tids,
                         const std::string& no_pmu_context) {
  for (const auto& [name, event] : profile.events) {
    if (event.scope != scope) continue;
    const std::vector<PmuInfo> instances = pmus.match(event.pmu);
    if (instances.empty()) {
      into.mark_unavailable(
          name, fmt::format("PMU {} not found in {}{}", event.pmu,
                            (pmus.root() / "bus/event_source/devices").string(), no_pmu_context));
      continue;
    }
    for (const PmuInfo& pmu : instances) {
      if (scope == EventScope::kSystem)
        open_system_wide(into, event, pmu, pmus);
      else
        open_per_thread(into, event, pmu, pmus, tids);
    }
  }
}

}  // namespace moesweep::counters
