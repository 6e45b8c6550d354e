// `moesweep predict`: the decode speed a machine can reach with a model, from
// the roofline (bandwidth / active bytes per token), and the speed to expect
// once an efficiency is known: from this machine's measured runs when there
// are any, else from the reference runs shipped in the hardware profile.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "commands.hpp"
#include "hw/bandwidth_probe.hpp"
#include "hw/build_info.hpp"
#include "hw/hardware_profile.hpp"
#include "hw/roofline.hpp"
#include "hw/topology.hpp"
#include "model/gguf_inspect.hpp"
#include "model/kv_cache.hpp"
#include "model/model_profile.hpp"
#include "model/quant_types.hpp"
#include "predict_l3.hpp"
#include "results/run_source.hpp"
#include "results/stats.hpp"
#include "util/error.hpp"

namespace moesweep::cli {

namespace {

struct PredictOptions {
  std::string hardware, model, quant = "Q4_K_S";
  double total_params = 0, active_params = 0;  // instead of --model: a model known by its size only
  int64_t depth = 8192;
  std::string cache_type = "q8_0";
  double bandwidth = 0;   // GB/s override
  double efficiency = 0;  // override, fraction
  double target_tps = 0;  // "what does it need for N tok/s"
  std::string runs_dir = "results/runs";
  std::string reference_model;  // calibrate only on the profile's runs of this model
  std::string trace;            // routing trace: add the L3 term (predict_l3.hpp)
};

struct ModelCost {
  std::string label;
  double total_bytes = 0;      // weights in memory
  double bytes_per_token = 0;  // weights + KV read per decoded token
  double kv_bytes = 0;
  double active_params = 0, total_params = 0;
};

ModelCost cost_from_profile(const std::string& name, const QuantType& q, int64_t depth,
                            ggml_type kv) {
  const ModelProfile p = load_model_profile(name);
  const ModelShape& s = p.shape;
  const ParamCount c = count_params(p);
  ModelCost m;
  m.label = fmt::format("{} {}", p.name, q.name);
  m.total_params = static_cast<double>(c.total);
  m.active_params = static_cast<double>(c.active);
  const double bytes_per_weight = q.approx_bpw / 8;
  m.total_bytes = m.total_params * bytes_per_weight;
  // Active weights plus the one embedding row a token looks up.
  const double weights = (m.active_params + static_cast<double>(s.hidden)) * bytes_per_weight;
  const double kv_per_token = static_cast<double>(kv_bytes_per_token(kv_shape_of(s), kv, kv));
  m.kv_bytes = kv_per_token * static_cast<double>(depth);
  m.bytes_per_token = weights + m.kv_bytes;
  return m;
}

ModelCost cost_from_sizes(const PredictOptions& o, const QuantType& q) {
  ModelCost m;
  m.label = fmt::format("{:.0f}B-total/{:.0f}B-active model, {}", o.total_params / 1e9,
                        o.active_params / 1e9, q.name);
  m.total_params = o.total_params;
  m.active_params = o.active_params;
  m.total_bytes = o.total_params * q.approx_bpw / 8;
  m.bytes_per_token = o.active_params * q.approx_bpw / 8;  // KV unknown without a shape
  return m;
}

// Efficiencies (S_TG / roofline_tg) recorded by this machine's sweeps.
// Only records whose active bytes are far past this machine's L3 count: a tiny
// twin decodes from cache and its "efficiency" says nothing about DRAM.
std::vector<double> measured_efficiencies(const std::string& runs_dir) {
  std::vector<double> out;
  const double min_bytes = 4.0 * static_cast<double>(std::max<uint64_t>(
                                     probe_topology().l3_total_bytes(), 256ull << 20));
  std::error_code ec;
  if (!std::filesystem::is_directory(runs_dir, ec)) return out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(runs_dir, ec)) {
    if (e.path().extension() != ".jsonl") continue;
    try {
      for (const Record& r : read_records_jsonl(e.path())) {
        // The sweep runner nests these under extra.roofline; accept them flat too.
        const nlohmann::json& f = r.extra.contains("roofline") ? r.extra["roofline"] : r.extra;
        if (r.ok && f.contains("efficiency_tg") && f.value("bandwidth_source", "") == "measured" &&
            f.value("active_bytes_per_token", 0.0) > min_bytes)
          out.push_back(f["efficiency_tg"].get<double>());
      }
    } catch (const std::exception&) {
      // a file we cannot read is not a calibration source
    }
  }
  return out;
}

struct Calibration {
  double efficiency = 0;
  std::string source;
};

// The profile's shipped runs (the seeds' tables): best S_TG over the roofline
// at the profile's theoretical bandwidth, with the same byte estimate.
std::optional<Calibration> reference_calibration(const HardwareProfile& hw,
                                                 const std::string& only_model) {
  std::vector<double> effs;
  std::string sources;
  for (const auto& run : hw.reference_runs) {
    if (!only_model.empty() && run.value("model", "") != only_model) continue;
    try {
      const QuantType& q = find_quant_type(run.value("quant", ""));
      const ModelCost m =
          cost_from_profile(run.value("model", ""), q, run.value("depth", int64_t{0}),
                            parse_cache_type(run.value("cache_type", "f16")));
      double best = 0;
      for (const auto& p : run.value("points", nlohmann::json::array()))
        best = std::max(best, p.value("speed_tg", 0.0));
      auto eff =
          efficiency(best, decode_roofline_tps(hw.theoretical_bandwidth_gbps(), m.bytes_per_token));
      if (!eff) continue;
      effs.push_back(*eff);
      sources += fmt::format("{}{} at {:.2f} t/s", sources.empty() ? "" : "; ", m.label, best);
    } catch (const UserError&) {
      // a reference run for a model profile this checkout lacks: skip it
    }
  }
  if (effs.empty()) return std::nullopt;
  return Calibration{Stats::of(effs).median,
                     fmt::format("{}'s reference runs ({})", hw.name, sources)};
}

int run_predict(const PredictOptions& o) {
  if (o.model.empty() == (o.active_params <= 0)) {
    throw UserError("predict needs a model",
                    "--model PROFILE, or --active-params and --total-params",
                    "e.g. --model kimi-k2.5, or --total-params 2.8e12 --active-params 104e9");
  }
  const HardwareProfile hw = load_hardware_profile(o.hardware);
  const QuantType& q = find_quant_type(o.quant);
  const ggml_type kv = parse_cache_type(o.cache_type);
  const ModelCost m =
      o.model.empty() ? cost_from_sizes(o, q) : cost_from_profile(o.model, q, o.depth, kv);
  const bool this_machine = match_hardware_profile(cpu_info().model_name).name == hw.name;

  double bandwidth = o.bandwidth;
  std::string bw_source = "--bandwidth";
  if (bandwidth <= 0 && this_machine) {
    if (auto cached = load_cached_bandwidth())
      bandwidth = cached->best_gbps, bw_source = "measured here";
  }
  if (bandwidth <= 0) bandwidth = hw.theoretical_bandwidth_gbps(), bw_source = "theoretical";
  if (bandwidth <= 0) {
    throw UserError(fmt::format("hardware profile '{}' gives no memory bandwidth", hw.name),
                    "a profile with memory channels and speed, or a measured figure",
                    "pass --bandwidth GB/s, or run `moesweep hw --bandwidth` on that machine");
  }

  fmt::print("hardware: {} - {:.1f} GB/s ({})\n", hw.name, bandwidth, bw_source);
  fmt::print("model:    {}: {:.0f} B params, {:.1f} B active per token\n", m.label,
             m.total_params / 1e9, m.active_params / 1e9);
  fmt::print("weights in memory: {:.0f} GB", m.total_bytes / 1e9);
  if (hw.memory_gb > 0)
    fmt::print(" ({} in {:.0f} GB)", m.total_bytes / 1e9 < hw.memory_gb ? "fits" : "does NOT fit",
               hw.memory_gb);
  fmt::print("\nbytes per decoded token: {:.2f} GB", m.bytes_per_token / 1e9);
  if (!o.model.empty())
    fmt::print(" (weights {:.2f} GB + KV {:.3f} GB at depth {}, {} cache)",
               (m.bytes_per_token - m.kv_bytes) / 1e9, m.kv_bytes / 1e9, o.depth, o.cache_type);
  else
    fmt::print(" (weights only: no shape, so no KV estimate)");
  const double bound = *decode_roofline_tps(bandwidth, m.bytes_per_token);
  fmt::print("\ndecode upper bound (roofline): {:.2f} tok/s\n", bound);
  if (!o.trace.empty())
    print_l3_term({o.trace, o.model, q.approx_bpw / 8, m.kv_bytes,
                   static_cast<double>(hw.l3_total_bytes()), bandwidth});

  std::optional<Calibration> cal;
  if (o.efficiency > 0) cal = Calibration{o.efficiency, "--efficiency"};
  if (!cal && this_machine) {
    const auto effs = measured_efficiencies(o.runs_dir);
    if (!effs.empty())
      cal = Calibration{Stats::of(effs).median, fmt::format("median of {} measured records in {}",
                                                            effs.size(), o.runs_dir)};
  }
  if (!cal) cal = reference_calibration(hw, o.reference_model);
  if (cal) {
    fmt::print("efficiency {:.0f}% of the roofline, from {}\n", 100 * cal->efficiency, cal->source);
    fmt::print("expected decode: {:.2f} tok/s\n", bound * cal->efficiency);
  } else {
    fmt::print(
        "efficiency: not calibrated (no measured runs here, no reference runs in the profile)\n");
  }
  if (o.target_tps > 0) {
    const double eff = cal ? cal->efficiency : 1.0;
    fmt::print(
        "for {:.2f} tok/s: {:.0f} GB/s at the roofline, {:.0f} GB/s at {:.0f}% efficiency; "
        "{:.0f} GB of memory for the weights\n",
        o.target_tps, required_bandwidth_gbps(o.target_tps, m.bytes_per_token),
        required_bandwidth_gbps(o.target_tps, m.bytes_per_token, eff), 100 * eff,
        m.total_bytes / 1e9);
  }
  return 0;
}

}  // namespace

void add_predict_command(CLI::App& app, CommandRunner& run) {
  auto o = std::make_shared<PredictOptions>();
  CLI::App* cmd =
      app.add_subcommand("predict", "decode speed a machine can reach with a model (roofline)");
  cmd->add_option("--hardware", o->hardware, "hardware profile (profiles/hardware) or JSON path")
      ->required();
  cmd->add_option("--model", o->model, "model profile (profiles/models) or JSON path");
  cmd->add_option("--quant", o->quant, "quant type, e.g. Q4_K_S");
  cmd->add_option("--total-params", o->total_params,
                  "instead of --model: total parameters (2.8e12)");
  cmd->add_option("--active-params", o->active_params,
                  "instead of --model: active parameters per token (104e9)");
  cmd->add_option("--depth", o->depth, "KV depth for the KV bytes read per token")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--cache-type", o->cache_type, "KV cache type");
  cmd->add_option("--bandwidth", o->bandwidth,
                  "memory bandwidth in GB/s (default: measured here, else theoretical)");
  cmd->add_option("--efficiency", o->efficiency,
                  "fraction of the roofline to expect (default: calibrated)");
  cmd->add_option("--target-tps", o->target_tps, "also print what this decode speed needs");
  cmd->add_option("--reference-model", o->reference_model,
                  "calibrate only on the hardware profile's reference runs of this model");
  cmd->add_option("--runs", o->runs_dir, "directory of measured runs used for calibration");
  cmd->add_option("--trace", o->trace,
                  "routing trace (moesweep trace): also the roofline with the L3 term");
  cmd->callback([&run, o] { run = [o] { return run_predict(*o); }; });
}

}  // namespace moesweep::cli
