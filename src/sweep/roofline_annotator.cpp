#include "sweep/roofline_annotator.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "hw/bandwidth_probe.hpp"
#include "hw/build_info.hpp"
#include "hw/cache_probe.hpp"
#include "hw/hardware_profile.hpp"
#include "hw/roofline.hpp"
#include "hw/topology.hpp"

namespace moesweep {

namespace {

void add_cache_probe(const CacheProbeResult& probe, BandwidthFigure& f) {
  f.l3_effective_bytes = probe.effective_l3_bytes;
  f.gemv_threads = probe.threads;
  if (probe.gemv.empty()) return;
  f.gemv_out_gbps = probe.gemv.back().gbps;
  f.gemv_out_gbps_all = probe.gemv.back().gbps_all;
  for (const GemvProbePoint& p : probe.gemv)
    if (p.pool_bytes * 2 <= probe.effective_l3_bytes || &p == &probe.gemv.front()) {
      f.gemv_in_gbps = std::max(f.gemv_in_gbps, p.gbps);
      f.gemv_in_gbps_all = std::max(f.gemv_in_gbps_all, p.gbps_all);
    }
}

// The figures for a run at `threads`: 1 thread's, else all threads' (the
// probe measures those two; a count in between gets the all-threads figure).
void add_kernel_figures(const BandwidthFigure& f, int threads, PointRoofline& roof) {
  for (const auto& [t, gbps] : f.by_threads)
    if (t == threads) roof.bandwidth_gbps_at_threads = gbps;
  const bool one = threads <= 1 || f.gemv_threads <= 1;
  const double out = one ? f.gemv_out_gbps : f.gemv_out_gbps_all;
  const double in = one ? f.gemv_in_gbps : f.gemv_in_gbps_all;
  if (out > 0) roof.kernel_gemv_out_of_cache_gbps = out;
  if (in > 0) roof.kernel_gemv_in_cache_gbps = in;
}

// The ceilings of hw/roofline.hpp as the record keeps them.
void add_bounds(const RecordRoofline& r, PointRoofline& roof) {
  roof.active_bytes_per_token = r.active_bytes_per_token;
  if (r.bandwidth_gbps > 0) roof.bandwidth_gbps = r.bandwidth_gbps;
  if (r.bandwidth_gbps > 0) roof.bandwidth_source = r.bandwidth_source;
  roof.roofline_tg = r.tg_bound_tps, roof.efficiency_tg = r.efficiency_tg;
  roof.roofline_pp = r.pp_bound_tps, roof.efficiency_pp = r.efficiency_pp;
}

}  // namespace

BandwidthFigure machine_bandwidth(const std::function<void(const std::string&)>& note) {
  BandwidthFigure f;
  const HardwareProfile profile = match_hardware_profile(cpu_info().model_name);
  f.peak_gflops = profile.peak_gflops;
  try {
    f.l3_bytes = probe_topology().l3_total_bytes();
  } catch (const std::exception&) {
    f.l3_bytes = 0;  // no hwloc view: the working-set figure draws no L3 line
  }
  if (const auto probe = load_cached_cache_probe()) add_cache_probe(*probe, f);
  std::optional<BandwidthMeasurement> m = load_cached_bandwidth();
  if (!m) {
    try {
      note(
          "measuring memory bandwidth once for the roofline (cached; `moesweep hw --bandwidth` "
          "redoes it)");
      BandwidthProbeOptions options;
      options.seconds = 2.0;
      m = measure_bandwidth(options);
      save_cached_bandwidth(*m);
    } catch (const std::exception& e) {
      note(fmt::format("bandwidth probe failed ({}); using the hardware profile", e.what()));
    }
  }
  if (m && m->gbps > 0) {
    f.gbps = m->gbps;
    f.source = "measured";
    for (const BandwidthPoint& p : m->points) f.by_threads.emplace_back(p.threads, p.gbps);
  } else if (profile.theoretical_bandwidth_gbps() > 0) {
    f.gbps = profile.theoretical_bandwidth_gbps();
    f.source = "theoretical";
  }
  return f;
}

nlohmann::json to_json(const BandwidthFigure& f) {
  nlohmann::json j = {{"gbps", f.gbps}, {"source", f.source}};
  if (f.l3_bytes > 0) j["l3_bytes"] = f.l3_bytes;
  if (f.l3_effective_bytes > 0) j["l3_effective_bytes"] = f.l3_effective_bytes;
  if (!f.by_threads.empty()) {
    j["by_threads"] = nlohmann::json::array();
    for (const auto& [threads, gbps] : f.by_threads)
      j["by_threads"].push_back({{"threads", threads}, {"gbps", gbps}});
  }
  return j;
}

void RooflineAnnotator::set_model(const std::string& path) {
  model_.reset();
  model_error_.clear();
  try {
    model_ = inspect_gguf(path);
  } catch (const std::exception& e) {
    model_error_ = e.what();
  }
}

void RooflineAnnotator::annotate(Record& r) const {
  if (!r.ok) return;
  if (!model_) {
    r.extra.roofline_error = model_error_;
    return;
  }
  const ActiveBytes active = active_bytes_per_token(
      *model_, r.params.n_kv, parse_cache_type(r.params.type_k), parse_cache_type(r.params.type_v));
  RooflineInputs in;
  in.active_bytes_per_token = static_cast<double>(active.total());
  in.bandwidth_gbps = bw_.gbps;
  in.flops_per_token = active.flops;
  in.peak_gflops = bw_.peak_gflops;
  PointRoofline& roof = r.extra.roofline.emplace();
  add_bounds(roofline_for_record(in, r.pp.speed.mean, r.tg.speed.mean, bw_.source), roof);
  roof.active_weight_bytes_per_token = active.weights();
  roof.kv_bytes_read_per_token = active.kv;
  // All routed experts of one MoE layer (0 for a dense model): the working set
  // a decode draws its experts from, against this machine's L3.
  roof.routed_expert_bytes_per_layer = model_->bytes_per_routed_expert() * model_->n_expert;
  // The whole pool (every MoE layer), what a token reads of it, and the rest
  // of its weights: the working-set report's x axis and its memory-bound check.
  roof.routed_expert_bytes_total = model_->group(TensorGroup::kRoutedExperts).bytes;
  roof.routed_bytes_per_token = active.routed_active;
  roof.hot_bytes_per_token = active.non_expert + active.shared;
  if (bw_.l3_bytes > 0) roof.l3_bytes = bw_.l3_bytes;
  if (bw_.l3_effective_bytes > 0) roof.l3_effective_bytes = bw_.l3_effective_bytes;
  add_kernel_figures(bw_, r.params.n_threads, roof);
}

}  // namespace moesweep
