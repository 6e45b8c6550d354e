#include "experiments/l3_validation_run.hpp"

#include <fmt/format.h>

#include <map>

#include "results/run_source.hpp"
#include "results/stats.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

// The routing trace the sweep wrote for a model (the first block's).
std::filesystem::path trace_for(const std::filesystem::path& run, const PointParams& p) {
  const std::string stem =
      p.model_path.empty() ? p.model_name : std::filesystem::path(p.model_path).stem().string();
  const std::string suffix = "-" + stem + ".trace.zst";
  std::filesystem::path found;
  for (const auto& e : std::filesystem::directory_iterator(run)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("routing-c", 0) == 0 && name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0 &&
        (found.empty() || name < found.filename().string()))
      found = e.path();
  }
  return found;
}

// The MoE twins of the run at its first thread count and depth, samples of every block pooled.
ValidationRun inputs_of(const std::filesystem::path& run) {
  std::map<std::string, std::vector<const Record*>> by_model;
  const std::vector<Record> records = read_records_jsonl(run / "records.jsonl");
  ValidationRun in;
  int depth = -1;
  for (const Record& r : records) {
    if (!r.ok || !r.extra.roofline || r.extra.roofline->routed_expert_bytes_total.value_or(0) == 0)
      continue;
    if (in.threads == 0) in.threads = r.params.n_threads, depth = r.params.n_kv;
    if (r.params.n_threads == in.threads && r.params.n_kv == depth)
      by_model[r.params.model_name].push_back(&r);
  }
  for (const auto& [model, recs] : by_model) {
    const PointRoofline& roof = *recs.front()->extra.roofline;
    ValidationPoint p;
    p.model = model;
    p.pool_bytes = or_value(roof.routed_expert_bytes_total, 0);
    std::vector<double> ys;
    for (const Record* r : recs)
      ys.insert(ys.end(), r->tg.tokens_per_s.begin(), r->tg.tokens_per_s.end());
    const Stats s = Stats::of(ys);
    p.measured_tps = s.mean, p.measured_ci95 = s.ci95;
    p.routed_bytes_per_token = or_value(roof.routed_bytes_per_token, 0);
    p.hot_bytes_per_token = or_value(roof.hot_bytes_per_token, 0);
    p.kv_bytes_per_token = or_value(roof.kv_bytes_read_per_token, 0);
    const std::filesystem::path trace = trace_for(run, recs.front()->params);
    if (trace.empty()) continue;
    p.trace = read_routing_trace(trace);
    in.points.push_back(std::move(p));
    in.nominal = roof.l3_bytes.value_or(0);
    in.effective = roof.l3_effective_bytes.value_or(0);
    const double bw = roof.bandwidth_gbps_at_threads.value_or(0) > 0
                          ? *roof.bandwidth_gbps_at_threads
                          : roof.bandwidth_gbps.value_or(0);
    in.rates = {roof.kernel_gemv_out_of_cache_gbps.value_or(0),
                roof.kernel_gemv_in_cache_gbps.value_or(0), bw};
  }
  return in;
}

void check(const ValidationRun& in, const std::filesystem::path& run) {
  auto refuse = [&](const std::string& what, const std::string& fix) {
    throw UserError(
        fmt::format("run '{}' cannot validate the cache models: {}", run.string(), what),
        "a working-set run recorded with --trace-routing after `moesweep hw --cache`", fix);
  };
  if (in.points.size() < 2)
    refuse("fewer than 2 MoE twins with a routing trace",
           "run `moesweep l3-run`, or the sweep with --trace-routing");
  if (in.effective == 0)
    refuse("its records carry no measured L3", "run `moesweep hw --cache` before the sweep");
  if (in.rates.out_of_cache_gbps <= 0 || in.rates.in_cache_gbps <= 0)
    refuse("its records carry no expert GEMV speeds",
           "run `moesweep hw --cache` (it measures them) before the sweep");
}

}  // namespace

ValidationRun read_validation_run(const std::filesystem::path& run) {
  ValidationRun in = inputs_of(run);
  check(in, run);
  return in;
}

nlohmann::json to_json(const Validation& v, const ValidationRun& in) {
  nlohmann::json j = {{"l3_effective_bytes", in.effective},
                      {"l3_bytes", in.nominal},
                      {"threads", in.threads},
                      {"best", v.best},
                      {"calibration_point", v.calibration_point},
                      {"rates_gbps",
                       {{"out_of_cache", in.rates.out_of_cache_gbps},
                        {"in_cache", in.rates.in_cache_gbps},
                        {"dram", in.rates.dram_gbps}}}};
  for (const ValidationPoint& p : v.points)
    j["points"].push_back({{"model", p.model},
                           {"pool_bytes", p.pool_bytes},
                           {"measured_tps", p.measured_tps},
                           {"measured_ci95", p.measured_ci95}});
  for (const ValidatedModel& m : v.models)
    j["models"].push_back({{"name", m.name},
                           {"hit", m.hit},
                           {"hot_hit", m.hot_hit},
                           {"predicted_tps", m.predicted_tps},
                           {"t0_seconds", m.t0_seconds},
                           {"mean_abs_error", m.mean_abs_error},
                           {"max_abs_error", m.max_abs_error}});
  return j;
}

}  // namespace moesweep
