#pragma once
// The working-set figure of an L3 experiment (profiles/sweeps/l3-working-set):
// S_TG and decode efficiency (measured / DRAM roofline) against the total
// routed-expert bytes of one MoE layer, one curve per routing skew and depth,
// the machine's L3 as a vertical line and dense twins as reference lines.
// Built from what the sweep wrote into each record (extra.roofline).
#include <nlohmann/json.hpp>

#include <vector>

#include "results/record.hpp"

namespace moesweep {

// plot_data.json's "working_set" entry, or null when the run does not vary
// the routed-expert bytes (no expert-count axis).
nlohmann::json working_set_data(const std::vector<Record>& records);

}  // namespace moesweep
