#pragma once
// The `predict` model: the decode speed a machine can reach with a model,
// from the roofline (bandwidth / bytes read per decoded token), and the speed
// to expect once an efficiency is known: given, from this machine's measured
// runs, else from the reference runs shipped in the hardware profile.
// Numbers in, numbers out; `moesweep predict` only prints a Prediction.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hw/hardware_profile.hpp"
#include "model/quant_types.hpp"

namespace moesweep {

// What to predict for. A plain struct: a new term (e.g. an L3 hit rate) is
// one more field here and in the CLI's flags.
struct PredictInputs {
  std::string hardware;  // hardware profile name or JSON path
  std::string model;     // model profile; or, instead, the two sizes below
  double total_params = 0, active_params = 0;
  // Or, instead of both: the bytes one decoded token reads, as a sweep record
  // measured them (extra.roofline.active_bytes_per_token; the fleet table).
  double active_bytes_per_token = 0;
  std::string quant = "Q4_K_S";
  int64_t depth = 8192;  // KV depth for the KV bytes read per token
  std::string cache_type = "q8_0";
  double bandwidth_gbps = 0;     // override; 0: measured here, else theoretical
  double efficiency = 0;         // override, fraction; 0: calibrated
  std::string calibration_file;  // `predict --calibrate --save` wrote it; "": none
  int threads = 0;        // the decode's thread count: its factor in calibration_file, where fitted
  double target_tps = 0;  // also say what this decode speed needs; 0: no
  std::string runs_dir = "results/runs";  // measured runs used for calibration
  std::string reference_model;            // calibrate only on the profile's runs of this model
  // The CPU we run on ("model name"); empty: read /proc/cpuinfo. Measured
  // figures (bandwidth, efficiencies) count only when it matches `hardware`.
  std::string cpu_model_name;
};

// The bytes one decoded token reads.
struct ModelCost {
  std::string label;
  double total_bytes = 0;      // weights in memory
  double bytes_per_token = 0;  // weights + KV read per decoded token
  double kv_bytes = 0;         // the KV part (0 without a shape)
  double active_params = 0, total_params = 0;
};
ModelCost cost_from_profile(const std::string& name, const QuantType& q, int64_t depth,
                            const std::string& cache_type);
// KV unknown without a shape: the active weights only.
ModelCost cost_from_sizes(double total_params, double active_params, const QuantType& q);
// The bytes per token a sweep recorded (weights and KV at the record's depth).
ModelCost cost_from_bytes(double bytes_per_token);

struct Calibration {
  double efficiency = 0;  // fraction of the roofline
  std::string source;     // where it came from, for the reader
};

// Efficiencies (S_TG / roofline_tg) recorded by sweeps under `runs_dir`,
// measured bandwidth only, and only from records whose active bytes exceed
// `min_active_bytes` (a tiny twin decodes from cache: says nothing about DRAM).
std::vector<double> measured_efficiencies(const std::string& runs_dir, double min_active_bytes);
// The profile's shipped runs: the median of best S_TG over the roofline at
// the profile's theoretical bandwidth, with the same byte estimate.
std::optional<Calibration> reference_calibration(const HardwareProfile& hw,
                                                 const std::string& only_model);

struct Prediction {
  HardwareProfile hardware;
  bool this_machine = false;  // `hardware` describes the CPU we run on
  double bandwidth_gbps = 0;
  std::string bandwidth_source;  // --bandwidth | measured here | theoretical
  ModelCost model;
  double bound_tps = 0;  // decode roofline
  std::optional<Calibration> calibration;
  std::optional<double> expected_tps;  // bound x calibrated efficiency
  // For target_tps (0 when none): GB/s at the roofline and at the calibrated
  // efficiency (1.0 without one).
  double required_gbps_at_roofline = 0, required_gbps_at_efficiency = 0;
  double target_efficiency = 1.0;
};

// Throws UserError for inputs it cannot predict from (no model, no bandwidth).
Prediction predict_decode(const PredictInputs& in);

}  // namespace moesweep
