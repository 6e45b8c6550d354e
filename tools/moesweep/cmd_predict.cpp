// `moesweep predict`: parse, predict (src/predict), print.
#include <fmt/format.h>

#include "commands.hpp"
#include "model/quant_types.hpp"
#include "predict/decode_prediction.hpp"
#include "predict_l3.hpp"

namespace moesweep::cli {

namespace {

void print_model(const PredictInputs& o, const Prediction& p) {
  const ModelCost& m = p.model;
  fmt::print("model:    {}: {:.0f} B params, {:.1f} B active per token\n", m.label,
             m.total_params / 1e9, m.active_params / 1e9);
  fmt::print("weights in memory: {:.0f} GB", m.total_bytes / 1e9);
  if (p.hardware.memory_gb > 0)
    fmt::print(" ({} in {:.0f} GB)",
               m.total_bytes / 1e9 < p.hardware.memory_gb ? "fits" : "does NOT fit",
               p.hardware.memory_gb);
  fmt::print("\nbytes per decoded token: {:.2f} GB", m.bytes_per_token / 1e9);
  if (!o.model.empty())
    fmt::print(" (weights {:.2f} GB + KV {:.3f} GB at depth {}, {} cache)",
               (m.bytes_per_token - m.kv_bytes) / 1e9, m.kv_bytes / 1e9, o.depth, o.cache_type);
  else
    fmt::print(" (weights only: no shape, so no KV estimate)");
}

int run_predict(const PredictInputs& o, const std::string& trace) {
  const Prediction p = predict_decode(o);
  fmt::print("hardware: {} - {:.1f} GB/s ({})\n", p.hardware.name, p.bandwidth_gbps,
             p.bandwidth_source);
  print_model(o, p);
  fmt::print("\ndecode upper bound (roofline): {:.2f} tok/s\n", p.bound_tps);
  if (!trace.empty())  // the same roofline with the routing trace's L3 term
    print_l3_term({trace, o.model, find_quant_type(o.quant).approx_bpw / 8, p.model.kv_bytes,
                   static_cast<double>(p.hardware.l3_total_bytes()), p.bandwidth_gbps});
  if (p.calibration) {
    fmt::print("efficiency {:.0f}% of the roofline, from {}\n", 100 * p.calibration->efficiency,
               p.calibration->source);
    fmt::print("expected decode: {:.2f} tok/s\n", *p.expected_tps);
  } else {
    fmt::print(
        "efficiency: not calibrated (no measured runs here, no reference runs in the profile)\n");
  }
  if (o.target_tps > 0) {
    fmt::print(
        "for {:.2f} tok/s: {:.0f} GB/s at the roofline, {:.0f} GB/s at {:.0f}% efficiency; "
        "{:.0f} GB of memory for the weights\n",
        o.target_tps, p.required_gbps_at_roofline, p.required_gbps_at_efficiency,
        100 * p.target_efficiency, p.model.total_bytes / 1e9);
  }
  return 0;
}

}  // namespace

void add_predict_command(CLI::App& app, CommandRunner& run) {
  auto o = std::make_shared<PredictInputs>();
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
  cmd->add_option("--bandwidth", o->bandwidth_gbps,
                  "memory bandwidth in GB/s (default: measured here, else theoretical)");
  cmd->add_option("--efficiency", o->efficiency,
                  "fraction of the roofline to expect (default: calibrated)");
  cmd->add_option("--target-tps", o->target_tps, "also print what this decode speed needs");
  cmd->add_option("--reference-model", o->reference_model,
                  "calibrate only on the hardware profile's reference runs of this model");
  cmd->add_option("--runs", o->runs_dir, "directory of measured runs used for calibration");
  auto trace = std::make_shared<std::string>();
  cmd->add_option("--trace", *trace,
                  "routing trace (moesweep trace): also the roofline with the L3 term");
  cmd->callback([&run, o, trace] { run = [o, trace] { return run_predict(*o, *trace); }; });
}

}  // namespace moesweep::cli
