#pragma once
// `moesweep l3-run`'s steps, each one sweep through RunSession: the pilot
// (the largest pool of a shape, to check it is memory-bound) and the
// experiment (every pool in randomised blocks, routing traced).
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "sweep/l3_shape.hpp"

namespace moesweep::cli {

struct L3RunOptions {
  L3RunSettings run;
  std::string out_dir = "results/runs";
  std::string db;     // "" = no database
  bool dense = true;  // the dense twin of the same active bytes beside the MoE twins
  bool quiet = false;
};

struct PilotResult {
  L3Shape shape;
  bool span_ok = false;   // auto-l3 found an expert size with enough points
  std::string plan_note;  // auto-l3's line (L3 planned for, expert size, points)
  int experts = 0, expert_ff = 0;
  double moe_active_params = 0;
  double s_tg = 0, routed_bytes_per_token = 0, kernel_gbps = 0;
  double m = 0;  // memory-bound share (l3_shape.hpp)
  std::filesystem::path run_dir;
};

// Plans the experiment of the first shape without running it: every setting
// is checked (UserError) before the cache probe, a twin or a pilot folder.
void check_l3_run_options(const L3RunOptions& o);
// Plans the shape's experiment; when its span is enough, measures its largest pool.
PilotResult run_pilot(const L3Shape& shape, const L3RunOptions& o);
// The whole experiment; returns its run directory.
std::filesystem::path run_experiment(const L3Shape& shape, int dense_ff, const L3RunOptions& o);
// One sweep of `settings` to its end (routing traced with `trace`), into `out_dir`; its directory.
std::filesystem::path run_l3_sweep(std::map<std::string, nlohmann::json> settings,
                                   const L3RunOptions& o, const std::filesystem::path& out_dir,
                                   bool trace);

}  // namespace moesweep::cli
