#include "counters/likwid_groups.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "counters/advice.hpp"
#include "counters/derived_metrics.hpp"

namespace moesweep::counters {
using nlohmann::json;

LikwidGroupPlan plan_likwid_groups(const CounterProfile& profile,
                                   const std::string& likwid_version) {
  LikwidGroupPlan plan;
  for (const LikwidGroupDef& group : profile.likwid.groups) {
    if (!group.min_version.empty() && !likwid_version.empty() &&
        compare_versions(likwid_version, group.min_version) < 0) {
      // An older release's group of that name counts other events (Zen 4's MEM
      // before 5.5 counted the data fabric's local beats only): not this metric.
      for (const MetricDef& m : group.metrics)
        plan.unavailable[m.name] = fmt::format(
            "liblikwid {}'s {} group for this CPU predates the events profile {} relies on "
            "(likwid >= {} has them): install a newer likwid or use --counters perf",
            likwid_version, group.name, profile.name, group.min_version);
      continue;
    }
    plan.groups.push_back(group);
  }
  for (const auto& [metric, why] : profile.likwid.unavailable)
    plan.unavailable.emplace(metric, why);
  for (const std::string& metric : hardware_metric_names()) {
    bool given = plan.unavailable.count(metric) > 0;
    for (const LikwidGroupDef& g : plan.groups)
      for (const MetricDef& m : g.metrics) given = given || m.name == metric;
    if (!given)
      plan.unavailable[metric] =
          fmt::format("profile {} names no likwid group and events for {}", profile.name, metric);
  }
  return plan;
}

json derive_likwid_group(const LikwidGroupDef& group, const LikwidGroupTotals& totals) {
  PhaseTotals t;
  t.repetitions = totals.repetitions;
  t.wall_s = totals.wall_s;
  t.tokens = totals.tokens;
  for (const auto& [ours, names] : group.events) {
    bool found = false;
    for (const std::string& name : names) {
      if (auto it = totals.events.find(name); it != totals.events.end()) {
        t.events[ours] = it->second;
        found = true;
        break;
      }
    }
    if (!found)
      t.unavailable[ours] = fmt::format("likwid's {} group here counts none of {}", group.name,
                                        fmt::join(names, ", "));
  }
  return derive_metrics(group.metrics, t);
}

}  // namespace moesweep::counters
