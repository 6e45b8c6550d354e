#pragma once
// Adds to every finished record what the seeds compute by hand: active bytes
// per decoded token at the record's depth (from the GGUF header), the decode
// roofline (bandwidth / active bytes) and the efficiency S_TG / roofline, and
// the prefill compute bound where the hardware profile knows the peak; and for
// the working-set figure the routed-expert bytes of one MoE layer and the L3.
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/gguf_inspect.hpp"
#include "results/record.hpp"

namespace moesweep {

struct BandwidthFigure {
  double gbps = 0;
  std::string source;  // "measured" (moesweep hw --bandwidth) or "theoretical" (hardware profile)
  double peak_gflops = 0;
  uint64_t l3_bytes = 0;            // this machine's total L3 (hwloc); 0 when hidden
  uint64_t l3_effective_bytes = 0;  // the usable L3 `hw --cache` measured; 0 when not
  // `hw --cache`'s expert GEMV: out of cache (its largest pool) and in cache
  // (its best pool up to half the usable L3), at 1 and at all `gemv_threads`.
  double gemv_out_gbps = 0, gemv_out_gbps_all = 0, gemv_in_gbps = 0, gemv_in_gbps_all = 0;
  int gemv_threads = 0;
  // The probe's best figure per thread count (measured only): what a run at N
  // threads can pull, which the fleet compares hosts by.
  std::vector<std::pair<int, double>> by_threads;
};

// meta.json's "bandwidth": gbps, source and the per-thread figures.
nlohmann::json to_json(const BandwidthFigure& f);

// The machine's bandwidth: the cached measurement, else measured now (a few
// seconds, then cached), falling back to the hardware profile's theoretical
// figure when measuring is impossible. `note` reports what was done.
BandwidthFigure machine_bandwidth(const std::function<void(const std::string&)>& note);

class RooflineAnnotator {
 public:
  explicit RooflineAnnotator(BandwidthFigure bandwidth) : bw_(std::move(bandwidth)) {}
  // Reads the model's header (no tensor data); a file it cannot inspect gets
  // records without roofline fields, with the reason in extra.roofline_error.
  void set_model(const std::string& path);
  void annotate(Record& record) const;

 private:
  BandwidthFigure bw_;
  std::optional<GgufInspection> model_;
  std::string model_error_;
};

}  // namespace moesweep
