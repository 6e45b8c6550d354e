#pragma once
// From the raw totals of one phase (summed over its repetitions) to the metrics
// a record carries. Every metric is either a number or {"unavailable": reason};
// a missing event, a zero denominator or a family that cannot measure it gives
// the reason, never a zero.
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "counters/counter_profile.hpp"

namespace moesweep::counters {

struct PhaseTotals {
  int repetitions = 0;
  double wall_s = 0;                               // summed over repetitions
  double tokens = 0;                               // summed over repetitions
  std::map<std::string, double> events;            // event -> summed count
  std::map<std::string, std::string> unavailable;  // event -> why it has no count
};

// Software events every Linux kernel counts per thread, also in VMs.
inline constexpr const char* kTaskClockNs = "TASK_CLOCK_NS";
inline constexpr const char* kContextSwitches = "CONTEXT_SWITCHES";
inline constexpr const char* kCpuMigrations = "CPU_MIGRATIONS";
inline constexpr const char* kPageFaults = "PAGE_FAULTS";

// task_clock_s, cpu_utilization, context_switches, cpu_migrations, page_faults
// (counts are per repetition; cpu_utilization is busy CPUs: task-clock / wall).
const std::vector<MetricDef>& software_metric_defs();
// The hardware metrics every record names, measurable or not.
const std::vector<std::string>& hardware_metric_names();

nlohmann::json derive_metrics(const std::vector<MetricDef>& defs, const PhaseTotals& totals);

// The same metric names, all unavailable for one reason (no profile, no PMU).
nlohmann::json all_unavailable(const std::vector<std::string>& names, const std::string& reason);

// Where each of `defs`' metrics in `out` comes from: out["sources"][name] =
// `source` ("software", "hardware"; the sim backend writes "simulated"), so a
// field that more than one backend fills (dram_bytes_per_token) says whose it is.
void mark_sources(nlohmann::json& out, const std::vector<std::string>& names,
                  const std::string& source);
void mark_sources(nlohmann::json& out, const std::vector<MetricDef>& defs,
                  const std::string& source);

}  // namespace moesweep::counters
