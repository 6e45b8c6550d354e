#include "analysis/l3_counters.hpp"

#include <fmt/format.h>

#include "analysis/l3_term.hpp"
#include "results/run_source.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

std::optional<nlohmann::json> counter(const nlohmann::json& counters, const char* name) {
  if (!counters.contains(name)) return std::nullopt;
  return counters[name];
}

}  // namespace

std::optional<PredictedTraffic> predicted_traffic_here(const L3Analysis& a) {
  const TargetPrediction* here = nullptr;
  for (const TargetPrediction& t : a.targets)
    if (t.target.source == CacheSource::kMeasured ||
        (t.target.source == CacheSource::kHwloc && !here))
      here = &t;
  if (!here) return std::nullopt;
  L3Inputs weights;  // the trace's bytes; streamed (KV) is the run's, not the trace's
  weights.hot_bytes = static_cast<double>(a.model.hot_bytes);
  weights.routed_bytes_per_token = static_cast<double>(a.model.routed_bytes_per_token());
  return PredictedTraffic{here->target.name, here->with_hot,
                          l3_decode_estimate(weights, here->with_hot).dram_bytes_with_l3};
}

std::vector<MeasuredPhase> measured_phases(const std::filesystem::path& run_dir) {
  const auto file = run_dir / "records.jsonl";
  if (!std::filesystem::exists(file))
    throw UserError(fmt::format("--run '{}' has no records.jsonl", run_dir.string()),
                    "a run directory written by `moesweep sweep`",
                    "pass the sweep's run directory");
  std::vector<MeasuredPhase> out;
  for (const Record& r : read_records_jsonl(file)) {
    if (!r.ok) continue;
    for (const auto& [phase, pr] : {std::pair{"PP", &r.pp}, std::pair{"TG", &r.tg}})
      out.push_back({r.params.model_name, r.params.n_threads, r.params.n_kv, phase,
                     counter(pr->counters, "l3_hit_rate"),
                     counter(pr->counters, "dram_bytes_per_token")});
  }
  return out;
}

}  // namespace moesweep
