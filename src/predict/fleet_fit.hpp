#pragma once
// A fleet (one plan merged per machine class by `moesweep merge`, issue 13):
// each host's decode speed at one depth against predict's roofline for that
// host's measured bandwidth and the bytes the sweep recorded per token, and
// predict's efficiency factor fitted across the hosts (least squares).
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "predict/decode_prediction.hpp"
#include "results/record.hpp"
#include "results/run_meta.hpp"

namespace moesweep {

struct FleetMember {
  RunMeta meta;  // the merged run's meta.json
  std::vector<Record> records;
};

struct Fleet {
  std::filesystem::path dir;
  std::string plan_id;
  std::vector<FleetMember> members;  // one per machine class
};

// DIR/fleet.json's index and each machine class's merged run (typed readers;
// a run's "dir" must be a folder inside DIR). Throws UserError when DIR is no
// fleet directory.
Fleet load_fleet(const std::filesystem::path& dir);

// Shallowest / deepest depth any member measured a point at (-1: none).
int fleet_depth(const std::vector<FleetMember>& members, bool deepest);

inline constexpr const char* kNoBandwidth = "n/a (no bandwidth measured)";

struct FleetBandwidth {
  double gbps = 0;
  int threads = 0;  // the probe's thread count it was measured at; 0: the peak over all
};

struct FleetHost {
  std::string hosts, machine, cpu, hardware_profile;
  int logical_cpus = 0;
  std::optional<double> bandwidth_gbps;  // measured only (a profile's theory is no measurement)
  int bandwidth_threads = 0;  // measured at the best decode's thread count; 0: the host's peak
  int n_kv = -1;
  double s_pp = 0, s_tg = 0;   // best over thread settings at n_kv (0: none measured)
  double bytes_per_token = 0;  // recorded with the best S_TG (0: not recorded)
  std::optional<double> roofline_tps, efficiency;
  std::string efficiency_text;  // the table cell: "42%" or why there is none
};

// One per member at depth `n_kv`.
std::vector<FleetHost> fleet_hosts(const std::vector<FleetMember>& members, int n_kv);

// predict_decode's roofline for these bytes per token at this bandwidth.
double fleet_roofline_tps(const std::string& hardware_profile, double bytes_per_token,
                          double bandwidth_gbps);

struct FleetFit {
  double efficiency = 0;                          // fitted fraction of the roofline
  double std_error = 0;                           // its standard error (0 with 2 hosts on one line)
  double min_efficiency = 0, max_efficiency = 0;  // the hosts' own
  int n_kv = -1;
  std::vector<FleetHost> hosts;      // those fitted
  std::vector<double> residual_tps;  // S_TG - efficiency x roofline, per host
};

// Least squares of S_TG = e x roofline over the hosts with a measured
// bandwidth; UserError (exit 2) with fewer than 2 such hosts.
FleetFit fit_fleet_efficiency(const std::vector<FleetHost>& hosts, const std::string& fleet_name);

// Every decode a fleet measured (host x thread count x depth) with the bytes
// it recorded and its host's bandwidth at that thread count (or peak): the
// samples of the finer calibrations below.
struct FleetSample {
  std::string hosts;
  int threads = 0, n_kv = 0;
  double s_tg = 0, roofline_tps = 0;
};
std::vector<FleetSample> fleet_samples(const std::vector<FleetMember>& members);

// One efficiency factor fitted over some samples (least squares through the
// origin), with the RMS of its residuals and, on the same samples, the RMS
// left by the single factor fitted over all of them.
struct FactorFit {
  std::string group;  // "all", "threads=4", "N_KV 4096-16383"
  int samples = 0;
  double efficiency = 0, std_error = 0;
  double rms_residual_tps = 0, rms_single_tps = 0;
};

// The single factor and the factors per thread count and per depth bucket
// (each group with 2+ samples; a group of one fits itself exactly, which
// says nothing).
struct CalibrationFits {
  FactorFit single;
  std::vector<FactorFit> by_threads, by_depth;
};
CalibrationFits fit_calibrations(const std::vector<FleetSample>& samples);
// Depth buckets: 0, 1-4095, 4096-16383, 16384-65535, 65536+.
std::string depth_bucket(int n_kv);

nlohmann::json to_json(const FleetFit& fit, const std::string& fleet, const std::string& plan_id);
nlohmann::json to_json(const CalibrationFits& fits);
// A file `predict --calibrate ... --save FILE` wrote; UserError when unusable.
// With `threads` (> 0) or `depth` (>= 0) its factor for that thread count,
// else that depth's bucket, where the file has one; else its single factor.
Calibration load_saved_calibration(const std::string& file, int threads = 0, int64_t depth = -1);

}  // namespace moesweep
