#pragma once
// The working-set experiment of an L3 run (profiles/sweeps/l3-working-set,
// `moesweep l3-run`): S_TG against the routed-expert pool (every expert of
// every MoE layer), one curve per routing skew, depth, thread count, quant
// and expert size, every timed sample of every block; the cliff fitted with
// bootstrap 95% intervals (cliff_fit.hpp) beside the measured and nominal L3;
// the dense twin against both plateaus with the same intervals; and first a
// check that the shape is memory-bound at all, so a flat curve of a
// compute-bound shape is never called "no cliff". Built from what the sweep
// wrote into each record (extra.roofline).
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "report/cliff_fit.hpp"
#include "results/record.hpp"

namespace moesweep {

// The share of a decoded token's time that reading its routed experts takes
// at the expert GEMV's out-of-cache speed (`hw --cache`), at the largest
// pool: m = S_TG x routed bytes per token / kernel GB/s. If the experts took
// a fraction m of the time and the kernel runs H times faster from cache,
// the engine's drop is 1 / (1 - m + m / H); at m = 0.5 that is 2H/(H+1),
// e.g. 1.31x for the 1.9x a 2-vCPU Zen 3 VM's kernel showed, which 3 blocks
// of 5 repetitions resolve at the 5-17% CVs seen there. Below it the curve
// is flat whatever the cache does: no verdict.
inline constexpr double kMemoryBoundShare = 0.5;

struct WorkingSetPoint {
  double pool_bytes = 0;
  double mean = 0, ci95 = 0;  // S_TG over every sample (all blocks)
  int samples = 0, blocks = 0;
  double efficiency = 0;  // S_TG / DRAM roofline (0: unknown)
};

struct WorkingSetCurve {
  std::string label;
  double skew = 0;
  int n_kv = 0, threads = 0, expert_ff = 0;
  std::string quant;
  std::vector<WorkingSetPoint> points;  // rising pool
  std::vector<CliffSample> samples;
  CliffResult cliff;
  double routed_bytes_per_token = 0, hot_bytes_per_token = 0;
  double kernel_out_gbps = 0, kernel_in_gbps = 0;  // hw --cache's GEMV at these threads
  std::optional<double> memory_bound_share;        // m at the largest pool
  std::string verdict;
};

// A dense twin of the same active bytes at one depth and thread count.
struct DenseReference {
  int n_kv = 0, threads = 0;
  double mean = 0, ci95 = 0;
  int samples = 0;
};

struct WorkingSet {
  std::vector<WorkingSetCurve> curves;
  std::vector<DenseReference> dense;
  double l3_nominal = 0, l3_effective = 0;  // bytes; 0 unknown
};

// nullopt when the run does not vary the routed-expert pool.
std::optional<WorkingSet> analyse_working_set(const std::vector<Record>& records,
                                              int bootstrap = 1000);
// plot_data.json's "working_set" entry (null when not an experiment).
nlohmann::json working_set_data(const std::vector<Record>& records);
nlohmann::json to_json(const WorkingSet& ws);
// report.md's section: per curve the verdict, the fit and the dense comparison.
std::string working_set_markdown(const WorkingSet& ws);

}  // namespace moesweep
