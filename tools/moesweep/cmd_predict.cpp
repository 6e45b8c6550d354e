// `moesweep predict`: parse, predict (src/predict), print.
#include <fmt/format.h>

#include "commands.hpp"
#include "predict/decode_prediction.hpp"
#include "predict/fleet_fit.hpp"
#include "predict_print.hpp"
#include "report/fleet_calibration.hpp"
#include "report/predict_table.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"
#include "util/parse_list.hpp"

namespace moesweep::cli {

namespace {

struct CalibrateArgs {
  std::string fleet;  // --calibrate FLEET
  std::string save;   // --save FILE
};

// --calibrate: fit, print, save; the fitted factor becomes the prediction's.
std::optional<Calibration> calibrate(const CalibrateArgs& c) {
  if (c.fleet.empty() && !c.save.empty()) {
    throw UserError("--save without --calibrate: nothing fitted to save",
                    "--calibrate FLEET --save FILE", "add --calibrate FLEET, or drop --save");
  }
  if (c.fleet.empty()) return std::nullopt;
  const Fleet f = load_fleet(c.fleet);
  const FleetFit fit =
      fit_fleet_efficiency(fleet_hosts(f.members, fleet_depth(f.members, false)), c.fleet);
  const CalibrationFits fits = fit_calibrations(fleet_samples(f.members));
  fmt::print("{}{}", fleet_fit_text(f, fit), calibration_fits_text(fits));
  if (!c.save.empty()) {
    nlohmann::json saved = to_json(fit, c.fleet, f.plan_id);
    saved["calibrations"] = to_json(fits);
    write_file_atomically(c.save, saved.dump(2) + "\n");
    fmt::print("saved -> {} (use it with: moesweep predict --calibration {} ...)\n", c.save,
               c.save);
  }
  return Calibration{fit.efficiency,
                     fmt::format("the fit over {} hosts of fleet {}", fit.hosts.size(), c.fleet)};
}

// --hardware A,B,...: one table, the same model and calibration on each.
int print_comparison(const PredictInputs& o, const std::optional<Calibration>& fitted,
                     TableWidth width) {
  std::vector<Prediction> all;
  for (const std::string& name : split_list(o.hardware)) {
    PredictInputs one = o;
    one.hardware = name;
    all.push_back(predict_decode(one));
    if (fitted) all.back().calibration = fitted;
  }
  fmt::print("model: {}; bytes per decoded token {:.2f} GB\n\n{}", all.front().model.label,
             all.front().model.bytes_per_token / 1e9, prediction_table(all, width));
  return 0;
}

int run_predict(PredictInputs o, const std::string& trace, const CalibrateArgs& c, bool wide) {
  const std::optional<Calibration> fitted = calibrate(c);
  if (fitted && o.hardware.empty() && o.model.empty() && o.active_params <= 0) return 0;
  if (o.hardware.empty()) {
    throw UserError("predict needs a hardware profile", "--hardware PROFILE (profiles/hardware)",
                    "e.g. --hardware epyc-9575f; or only --calibrate FLEET to fit the efficiency");
  }
  const bool use_fit = fitted && o.efficiency <= 0;  // --efficiency still wins
  if (use_fit) o.efficiency = fitted->efficiency;
  if (o.hardware.find(',') != std::string::npos)
    return print_comparison(o, use_fit ? fitted : std::nullopt,
                            wide ? TableWidth::kWide : TableWidth::kCompact);
  Prediction p = predict_decode(o);
  if (use_fit) p.calibration = fitted;
  print_prediction(o, p, trace);
  return 0;
}

}  // namespace

void add_predict_command(CLI::App& app, CommandRunner& run) {
  auto o = std::make_shared<PredictInputs>();
  CLI::App* cmd =
      app.add_subcommand("predict", "decode speed a machine can reach with a model (roofline)");
  cmd->add_option("--hardware", o->hardware,
                  "hardware profile (profiles/hardware) or JSON path; A,B,... compares them");
  cmd->add_option("--model", o->model, "model profile (profiles/models) or JSON path");
  cmd->add_option("--quant", o->quant, "quant type, e.g. Q4_K_S");
  cmd->add_option("--total-params", o->total_params,
                  "instead of --model: total parameters (2.8e12)")
      ->check(positive(1e15));
  cmd->add_option("--active-params", o->active_params,
                  "instead of --model: active parameters per token (104e9)")
      ->check(positive(1e15));
  cmd->add_option("--depth", o->depth, "KV depth for the KV bytes read per token")
      ->check(non_negative(1e9));
  cmd->add_option("--cache-type", o->cache_type, "KV cache type");
  cmd->add_option("--bandwidth", o->bandwidth_gbps,
                  "memory bandwidth in GB/s (default: measured here, else theoretical)")
      ->check(positive(1e7));
  cmd->add_option("--efficiency", o->efficiency,
                  "fraction of the roofline to expect, above 0 and at most 1 (default: "
                  "calibrated)")
      ->check(positive(1));
  cmd->add_option("--target-tps", o->target_tps, "also print what this decode speed needs")
      ->check(positive(1e9));
  cmd->add_option("--reference-model", o->reference_model,
                  "calibrate only on the hardware profile's reference runs of this model");
  cmd->add_option("--runs", o->runs_dir, "directory of measured runs used for calibration");
  auto trace = std::make_shared<std::string>();
  cmd->add_option("--trace", *trace,
                  "routing trace (moesweep trace): also the roofline with the L3 term");
  auto cal = std::make_shared<CalibrateArgs>();
  cmd->add_option("--calibrate", cal->fleet,
                  "fit the efficiency across a fleet (the --out of `moesweep merge` over several "
                  "machine classes) and use it");
  cmd->add_option("--save", cal->save, "with --calibrate: write the fitted efficiency to FILE");
  cmd->add_option("--calibration", o->calibration_file,
                  "use the efficiency a `--calibrate ... --save FILE` wrote");
  cmd->add_option("--threads", o->threads,
                  "with --calibration: the factor fitted for this thread count, where fitted")
      ->check(in_range(1, 1 << 16));
  auto wide = std::make_shared<bool>(false);
  cmd->add_flag("--wide", *wide,
                "with several --hardware: every column (price, power, memory, the bandwidth's "
                "source) instead of the table that fits 120 columns");
  cmd->callback([&run, o, trace, cal, wide] {
    run = [o, trace, cal, wide] { return run_predict(*o, *trace, *cal, *wide); };
  });
}

}  // namespace moesweep::cli
