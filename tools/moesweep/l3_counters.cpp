#include "l3_counters.hpp"

#include <fmt/format.h>

#include "analysis/l3_term.hpp"
#include "results/run_source.hpp"
#include "util/error.hpp"

namespace moesweep::cli {
namespace {

std::string counter_text(const nlohmann::json& counters, const std::string& name, double scale,
                         const char* unit) {
  if (!counters.contains(name)) return "not measured";
  const nlohmann::json& v = counters[name];
  if (v.is_number()) return fmt::format("{:.3g}{}", v.get<double>() * scale, unit);
  if (v.is_object() && v.contains("unavailable"))
    return "unavailable (" + v["unavailable"].get<std::string>() + ")";
  return v.dump();
}

}  // namespace

void print_counters_beside_prediction(const L3Analysis& a, const std::filesystem::path& run_dir) {
  const auto file = run_dir / "records.jsonl";
  if (!std::filesystem::exists(file))
    throw UserError(fmt::format("--run '{}' has no records.jsonl", run_dir.string()),
                    "a run directory written by `moesweep sweep`",
                    "pass the sweep's run directory");
  // The measured cache when `hw --cache` ran, else hwloc's.
  const TargetPrediction* here = nullptr;
  for (const TargetPrediction& t : a.targets)
    if (t.target.name.rfind("this machine", 0) == 0 &&
        (!here || t.target.name == "this machine (measured)"))
      here = &t;
  fmt::print("\nmeasured (counters) beside predicted (trace) for this machine\n");
  if (here) {
    // Weights only: the KV cache read is the run's, not the trace's.
    const TraceModel& m = a.model;
    const HitRates& h = here->with_hot;
    const double dram = static_cast<double>(m.hot_bytes) * (1 - h.hot_generation) +
                        static_cast<double>(m.routed_bytes_per_token()) * (1 - h.generation);
    fmt::print(
        "  predicted TG ({}): L3 hit rate of routed-expert bytes {:.1f}% (hot set {:.1f}%), "
        "weight bytes from DRAM {:.3g} MB/token\n",
        here->target.name, 100 * h.generation, 100 * h.hot_generation, dram / 1e6);
  } else {
    fmt::print("  predicted: none (hwloc reports no L3 here)\n");
  }
  for (const Record& r : read_records_jsonl(file)) {
    if (!r.ok) continue;
    for (const auto& [phase, pr] : {std::pair{"PP", &r.pp}, std::pair{"TG", &r.tg}})
      fmt::print("  {} t={} N_KV={} {}: l3_hit_rate {}, dram_bytes_per_token {}\n",
                 r.params.model_name, r.params.n_threads, r.params.n_kv, phase,
                 counter_text(pr->counters, "l3_hit_rate", 100, "%"),
                 counter_text(pr->counters, "dram_bytes_per_token", 1e-6, " MB"));
  }
}

}  // namespace moesweep::cli
