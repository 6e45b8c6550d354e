#pragma once
// `moesweep l3-run`'s choice of shape (sweep/l3_shape.hpp): a pilot per
// step of the ladder measures the largest pool of the shape's plan, and the
// first step whose span is enough and whose largest pool is memory-bound
// (report/working_set.hpp's kMemoryBoundShare) is the experiment's; when
// none is, the most memory-bound pilot says why this machine cannot show a
// cache effect. Each pilot is a sweep through RunSession (l3_experiment.hpp).
#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "results/record.hpp"
#include "sweep/l3_shape.hpp"
#include "sweep/plan.hpp"

namespace moesweep {

struct PilotResult {
  L3Shape shape;
  bool span_ok = false;            // auto-l3 found an expert size with enough points
  std::string plan_note;           // auto-l3's lines (L3 planned for, expert size, points)
  int experts = 0, expert_ff = 0;  // the largest pool's twin
  double moe_active_params = 0;
  double s_tg = 0, routed_bytes_per_token = 0, kernel_gbps = 0;  // measured, the roofline's
  double memory_bound_share = 0;  // l3_shape.hpp's m of these figures
  std::filesystem::path run_dir;  // the pilot's run ("" when its span was not enough)
};
nlohmann::json to_json(const PilotResult& p);

// What the shape's plan says: its span (auto-l3's notes, never their prose)
// and its largest pool (left blank when the span is not enough).
PilotResult plan_pilot(const L3Shape& shape, const Plan& plan);
// The figures of a measured point of the pilot (S_TG, and from its roofline the
// routed bytes per token and the kernel's out-of-cache speed); failed points
// and points without a roofline leave `p` as it is.
void take_pilot_figures(const Record& point, PilotResult& p);

struct PilotLadder {
  std::vector<PilotResult> pilots;    // in ladder order, as measured
  std::optional<PilotResult> chosen;  // the first with its span and memory-bound
  PilotResult best;                   // the most memory-bound pilot
  // Why no shape of the ladder can show a cache effect (the best pilot's figures).
  std::string verdict(uint64_t usable_l3_bytes) const;
};

// Climbs `ladder`, running `pilot` on each step until one is chosen;
// `measured` hears each pilot as it is done.
PilotLadder climb_l3_ladder(const std::vector<L3Shape>& ladder,
                            const std::function<PilotResult(const L3Shape&)>& pilot,
                            const std::function<void(const PilotResult&)>& measured = {});

}  // namespace moesweep
