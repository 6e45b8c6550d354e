#include "sweep/roofline_annotator.hpp"

#include <fmt/format.h>

#include "hw/bandwidth_probe.hpp"
#include "hw/build_info.hpp"
#include "hw/hardware_profile.hpp"
#include "hw/roofline.hpp"
#include "hw/topology.hpp"

namespace moesweep {

BandwidthFigure machine_bandwidth(const std::function<void(const std::string&)>& note) {
  BandwidthFigure f;
  const HardwareProfile profile = match_hardware_profile(cpu_info().model_name);
  f.peak_gflops = profile.peak_gflops;
  try {
    f.l3_bytes = probe_topology().l3_total_bytes();
  } catch (const std::exception&) {
    f.l3_bytes = 0;  // no hwloc view: the working-set figure draws no L3 line
  }
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
  if (m && m->best_gbps > 0) {
    f.gbps = m->best_gbps;
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
    if (!model_error_.empty()) r.extra["roofline_error"] = model_error_;
    return;
  }
  const ActiveBytes active = active_bytes_per_token(
      *model_, r.params.n_kv, parse_cache_type(r.params.type_k), parse_cache_type(r.params.type_v));
  RooflineInputs in;
  in.active_bytes_per_token = static_cast<double>(active.total());
  in.bandwidth_gbps = bw_.gbps;
  in.flops_per_token = active.flops;
  in.peak_gflops = bw_.peak_gflops;
  nlohmann::json j = to_json(roofline_for_record(in, r.pp.speed.mean, r.tg.speed.mean, bw_.source));
  j["active_weight_bytes_per_token"] = active.weights();
  j["kv_bytes_read_per_token"] = active.kv;
  // All routed experts of one MoE layer (0 for a dense model): the working set
  // a decode draws its experts from, against this machine's L3.
  j["routed_expert_bytes_per_layer"] = model_->bytes_per_routed_expert() * model_->n_expert;
  if (bw_.l3_bytes > 0) j["l3_bytes"] = bw_.l3_bytes;
  r.extra["roofline"] = j;
}

}  // namespace moesweep
