#include "predict/decode_prediction.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "hw/bandwidth_probe.hpp"
#include "hw/build_info.hpp"
#include "hw/roofline.hpp"
#include "hw/topology.hpp"
#include "model/gguf_inspect.hpp"
#include "model/kv_cache.hpp"
#include "model/model_profile.hpp"
#include "predict/fleet_fit.hpp"
#include "results/run_source.hpp"
#include "results/stats.hpp"
#include "util/error.hpp"
#include "util/json_fields.hpp"

namespace moesweep {

ModelCost cost_from_profile(const std::string& name, const QuantType& q, int64_t depth,
                            const std::string& cache_type) {
  const ModelProfile p = load_model_profile(name);
  const ggml_type kv = parse_cache_type(cache_type);
  const ParamCount c = count_params(p);
  ModelCost m;
  m.label = fmt::format("{} {}", p.name, q.name);
  m.total_params = static_cast<double>(c.total);
  m.active_params = static_cast<double>(c.active);
  const double bytes_per_weight = q.approx_bpw / 8;
  m.total_bytes = m.total_params * bytes_per_weight;
  // Active weights plus the one embedding row a token looks up.
  const double weights = (m.active_params + static_cast<double>(p.shape.hidden)) * bytes_per_weight;
  const double kv_per_token = static_cast<double>(kv_bytes_per_token(kv_shape_of(p.shape), kv, kv));
  m.kv_bytes = kv_per_token * static_cast<double>(depth);
  m.bytes_per_token = weights + m.kv_bytes;
  return m;
}

ModelCost cost_from_sizes(double total_params, double active_params, const QuantType& q) {
  ModelCost m;
  m.label = fmt::format("{:.0f}B-total/{:.0f}B-active model, {}", total_params / 1e9,
                        active_params / 1e9, q.name);
  m.total_params = total_params;
  m.active_params = active_params;
  m.total_bytes = total_params * q.approx_bpw / 8;
  m.bytes_per_token = active_params * q.approx_bpw / 8;
  return m;
}

ModelCost cost_from_bytes(double bytes_per_token) {
  ModelCost m;
  m.label = fmt::format("{:.3f} GB read per decoded token (as recorded)", bytes_per_token / 1e9);
  m.bytes_per_token = bytes_per_token;
  return m;
}

std::vector<double> measured_efficiencies(const std::string& runs_dir, double min_active_bytes) {
  std::vector<double> out;
  std::error_code ec;
  if (!std::filesystem::is_directory(runs_dir, ec)) return out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(runs_dir, ec)) {
    if (e.path().extension() != ".jsonl") continue;
    try {
      for (const Record& r : read_records_jsonl(e.path())) {
        // The sweep runner nests these under extra.roofline; accept them flat too.
        const std::optional<PointRoofline> f = roofline_or_flat(r.extra);
        if (r.ok && f && f->efficiency_tg && f->bandwidth_source == "measured" &&
            f->active_bytes_per_token.value_or(0.0) > min_active_bytes)
          out.push_back(*f->efficiency_tg);
      }
    } catch (const std::exception&) {
      // a file we cannot read is not a calibration source
    }
  }
  return out;
}

namespace {

// One reference run's cost; nullopt for a model profile this checkout lacks.
std::optional<ModelCost> reference_cost(const JsonFields& run) {
  try {
    return cost_from_profile(run.text("model"), find_quant_type(run.text("quant")),
                             run.integer("depth", 0, int64_t{1} << 30, 0),
                             run.text("cache_type", "f16"));
  } catch (const UserError&) {
    return std::nullopt;
  }
}

}  // namespace

std::optional<Calibration> reference_calibration(const HardwareProfile& hw,
                                                 const std::string& only_model) {
  std::vector<double> effs;
  std::string sources;
  const std::string origin = fmt::format("hardware profile '{}'", hw.name);
  const double bandwidth = hw.theoretical_bandwidth_gbps();
  bool no_speed = false;  // a run of a known model whose speeds are all 0
  for (size_t i = 0; i < hw.reference_runs.size(); ++i) {
    const JsonFields run(hw.reference_runs[i], origin, fmt::format("reference_runs[{}]", i));
    if (!only_model.empty() && run.text("model") != only_model) continue;
    const std::optional<ModelCost> m = reference_cost(run);
    const auto bound = m ? decode_roofline_tps(bandwidth, m->bytes_per_token) : std::nullopt;
    if (!bound) continue;
    double best = 0;
    for (const JsonFields& p : run.objects("points"))
      best = std::max(best, p.number("speed_tg", 0, 1e7, 0));
    no_speed = no_speed || best <= 0;
    const auto eff = efficiency(best, bound);
    if (!eff || best <= 0) continue;
    if (*eff > 1)
      throw UserError(
          fmt::format("{}: reference run {} ({}) decodes {:.2f} t/s, above the roofline of {:.2f} "
                      "t/s at the profile's {:.1f} GB/s",
                      origin, i, m->label, best, *bound, bandwidth),
          "reference speeds at or under the roofline of the profile's bandwidth",
          "check the run's speeds and the profile's memory channels and speed");
    effs.push_back(*eff);
    sources += fmt::format("{}{} at {:.2f} t/s", sources.empty() ? "" : "; ", m->label, best);
  }
  if (effs.empty() && no_speed)
    throw UserError(fmt::format("{}: its reference runs give no decode speed (every speed_tg is "
                                "0 or missing)",
                                origin),
                    "reference runs with measured S_TG > 0",
                    "fix the profile's reference_runs, or pass --efficiency FRACTION");
  if (effs.empty()) return std::nullopt;
  return Calibration{Stats::of(effs).median,
                     fmt::format("{}'s reference runs ({})", hw.name, sources)};
}

namespace {

// --bandwidth, else this machine's measurement, else the profile's theory.
void choose_bandwidth(const PredictInputs& in, Prediction& p) {
  p.bandwidth_gbps = in.bandwidth_gbps;
  p.bandwidth_source = "--bandwidth";
  if (p.bandwidth_gbps <= 0 && p.this_machine) {
    if (auto cached = load_cached_bandwidth())
      p.bandwidth_gbps = cached->gbps, p.bandwidth_source = "measured here";
  }
  if (p.bandwidth_gbps <= 0)
    p.bandwidth_gbps = p.hardware.theoretical_bandwidth_gbps(), p.bandwidth_source = "theoretical";
  if (p.bandwidth_gbps <= 0) {
    throw UserError(fmt::format("hardware profile '{}' gives no memory bandwidth", p.hardware.name),
                    "a profile with memory channels and speed, or a measured figure",
                    "pass --bandwidth GB/s, or run `moesweep hw --bandwidth` on that machine");
  }
}

// --efficiency, else this machine's measured runs, else the profile's.
std::optional<Calibration> choose_calibration(const PredictInputs& in, const Prediction& p) {
  if (in.efficiency > 0) return Calibration{in.efficiency, "--efficiency"};
  if (!in.calibration_file.empty())
    return load_saved_calibration(in.calibration_file, in.threads, in.depth);
  if (p.this_machine) {
    const double min_bytes = 4.0 * static_cast<double>(std::max<uint64_t>(
                                       probe_topology().l3_total_bytes(), 256ull << 20));
    const auto effs = measured_efficiencies(in.runs_dir, min_bytes);
    if (!effs.empty())
      return Calibration{Stats::of(effs).median, fmt::format("median of {} measured records in {}",
                                                             effs.size(), in.runs_dir)};
  }
  return reference_calibration(p.hardware, in.reference_model);
}

// Numbers no prediction can come from (NaN, negative, a fraction above 1,
// more active parameters than there are): refused, each with its flag.
void check_inputs(const PredictInputs& in) {
  const struct {
    const char* flag;
    double value, hi;
  } ranges[] = {{"--bandwidth", in.bandwidth_gbps, 1e7},
                {"--efficiency", in.efficiency, 1},
                {"--total-params", in.total_params, 1e15},
                {"--active-params", in.active_params, 1e15},
                {"--target-tps", in.target_tps, 1e9},
                {"--depth", static_cast<double>(in.depth), 1e9},
                {"the bytes per decoded token", in.active_bytes_per_token, 1e15}};
  for (const auto& r : ranges)
    if (!(r.value >= 0 && r.value <= r.hi))
      throw UserError(fmt::format("predict: {} {} is outside its range", r.flag, r.value),
                      fmt::format("a number from 0 to {} (0 or left out: not given)", r.hi),
                      fmt::format("correct {}", r.flag));
  if ((in.total_params > 0) != (in.active_params > 0))
    throw UserError("predict: a model by its sizes needs both of them",
                    "--total-params N and --active-params N", "give both, or --model PROFILE");
  if (in.active_params > in.total_params)
    throw UserError(fmt::format("predict: --active-params {} is above --total-params {}",
                                in.active_params, in.total_params),
                    "active parameters per token at most the total",
                    "swap or correct the two values");
}

}  // namespace

Prediction predict_decode(const PredictInputs& in) {
  check_inputs(in);
  const int models = !in.model.empty() + (in.active_params > 0) + (in.active_bytes_per_token > 0);
  if (models != 1) {
    throw UserError(models == 0 ? "predict needs a model" : "predict got more than one model",
                    "--model PROFILE, or --active-params and --total-params",
                    "e.g. --model kimi-k2.5, or --total-params 2.8e12 --active-params 104e9");
  }
  Prediction p;
  p.hardware = load_hardware_profile(in.hardware);
  const QuantType& q = find_quant_type(in.quant);
  parse_cache_type(in.cache_type);  // refused even when a size-only model has no KV term
  p.model = in.active_bytes_per_token > 0 ? cost_from_bytes(in.active_bytes_per_token)
            : in.model.empty()            ? cost_from_sizes(in.total_params, in.active_params, q)
                                          : cost_from_profile(in.model, q, in.depth, in.cache_type);
  const std::string cpu = in.cpu_model_name.empty() ? cpu_info().model_name : in.cpu_model_name;
  p.this_machine = match_hardware_profile(cpu).name == p.hardware.name;
  choose_bandwidth(in, p);
  p.bound_tps = *decode_roofline_tps(p.bandwidth_gbps, p.model.bytes_per_token);
  p.calibration = choose_calibration(in, p);
  if (p.calibration) p.expected_tps = p.bound_tps * p.calibration->efficiency;
  if (in.target_tps > 0) {
    p.target_efficiency = p.calibration ? p.calibration->efficiency : 1.0;
    p.required_gbps_at_roofline = required_bandwidth_gbps(in.target_tps, p.model.bytes_per_token);
    p.required_gbps_at_efficiency =
        required_bandwidth_gbps(in.target_tps, p.model.bytes_per_token, p.target_efficiency);
  }
  return p;
}

}  // namespace moesweep
