#pragma once
// The likwid path, by exact event names: which of the profile's likwid groups
// to program for the loaded liblikwid, and how a group's event sums become
// metrics. A group counts an event once per counter (one per UMC channel, one
// per L3 segment) and per hardware thread; all of them are added under the
// event's name. Matching names by pattern is what made L3_MISS_REQ and
// L3_CACHE_REQ_MISS add up, and a miss count pass for a lookup count.
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "counters/counter_profile.hpp"

namespace moesweep::counters {

struct LikwidGroupPlan {
  std::vector<LikwidGroupDef> groups;              // to program, in order
  std::map<std::string, std::string> unavailable;  // hardware metric -> why no group gives it
};

// likwid_version: of the loaded liblikwid ("5.2"); "" when unknown (then a
// group's min_version is not checked).
LikwidGroupPlan plan_likwid_groups(const CounterProfile& profile,
                                   const std::string& likwid_version);

// One group's totals over the repetitions it ran in.
struct LikwidGroupTotals {
  int repetitions = 0;
  double wall_s = 0, tokens = 0;
  std::map<std::string, double> events;  // likwid event name -> sum over counters and threads
};

// The group's metrics (number or {"unavailable": reason}).
nlohmann::json derive_likwid_group(const LikwidGroupDef& group, const LikwidGroupTotals& totals);

}  // namespace moesweep::counters
