#include "counters/derived_metrics.hpp"

#include <fmt/format.h>

#include <cmath>

#include "counters/metric_formula.hpp"

namespace moesweep::counters {
using nlohmann::json;

namespace {

json unavailable(const std::string& reason) {
  return {{"unavailable", reason}};
}

MetricDef software_metric(const char* name, std::string formula, const char* unit,
                          const char* description) {
  MetricDef m;
  m.name = name;
  m.formula = std::move(formula);
  m.unit = unit;
  m.description = description;
  return m;
}

}  // namespace

const std::vector<MetricDef>& software_metric_defs() {
  static const std::vector<MetricDef> defs = {
      software_metric("task_clock_s", fmt::format("{} / 1e9 / repetitions", kTaskClockNs), "s",
                      "CPU time of all this process's threads per repetition"),
      software_metric("cpu_utilization", fmt::format("{} / 1e9 / time", kTaskClockNs), "CPUs",
                      "task-clock over wall time: how many CPUs were busy on average"),
      software_metric("context_switches", fmt::format("{} / repetitions", kContextSwitches),
                      "count", "context switches per repetition"),
      software_metric("cpu_migrations", fmt::format("{} / repetitions", kCpuMigrations), "count",
                      "threads moved between CPUs per repetition"),
      software_metric("page_faults", fmt::format("{} / repetitions", kPageFaults), "count",
                      "page faults per repetition (first touch of mmap'ed weights shows here)"),
  };
  return defs;
}

const std::vector<std::string>& hardware_metric_names() {
  static const std::vector<std::string> names = {"l3_hit_rate",    "l3_misses_per_token",
                                                 "dram_read_gbps", "dram_write_gbps",
                                                 "dram_gbps",      "dram_bytes_per_token"};
  return names;
}

json derive_metrics(const std::vector<MetricDef>& defs, const PhaseTotals& totals) {
  json out = json::object();
  for (const MetricDef& def : defs) {
    if (!def.unavailable.empty()) {
      out[def.name] = unavailable(def.unavailable);
      continue;
    }
    if (totals.repetitions == 0) {
      out[def.name] = unavailable("no repetition of this phase was measured");
      continue;
    }
    std::string missing;
    for (const std::string& id : formula_identifiers(def.formula)) {
      if (id == "time" || id == "tokens" || id == "repetitions") continue;
      if (auto it = totals.unavailable.find(id); it != totals.unavailable.end())
        missing = fmt::format("{}: {}", id, it->second);
      else if (!totals.events.count(id))
        missing = fmt::format("{} was not counted", id);
      if (!missing.empty()) break;
    }
    if (!missing.empty()) {
      out[def.name] = unavailable(missing);
      continue;
    }
    const double value =
        evaluate_formula(def.formula, [&](const std::string& id) -> std::optional<double> {
          if (id == "time") return totals.wall_s;
          if (id == "tokens") return totals.tokens;
          if (id == "repetitions") return totals.repetitions;
          if (auto it = totals.events.find(id); it != totals.events.end()) return it->second;
          return std::nullopt;
        });
    out[def.name] = std::isfinite(value)
                        ? json(value)
                        : unavailable(fmt::format("{}: a denominator was zero in this phase "
                                                  "(nothing counted, no tokens or no wall time)",
                                                  def.formula));
  }
  return out;
}

json all_unavailable(const std::vector<std::string>& names, const std::string& reason) {
  json out = json::object();
  for (const std::string& name : names) out[name] = unavailable(reason);
  return out;
}

void mark_sources(json& out, const std::vector<std::string>& names, const std::string& source) {
  for (const std::string& name : names)
    if (out.contains(name)) out["sources"][name] = source;
}

void mark_sources(json& out, const std::vector<MetricDef>& defs, const std::string& source) {
  for (const MetricDef& def : defs)
    if (out.contains(def.name)) out["sources"][def.name] = source;
}

}  // namespace moesweep::counters
