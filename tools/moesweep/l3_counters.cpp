#include "l3_counters.hpp"

#include <fmt/format.h>

#include "analysis/l3_counters.hpp"

namespace moesweep::cli {
namespace {

std::string counter_text(const std::optional<nlohmann::json>& value, double scale,
                         const char* unit) {
  if (!value) return "not measured";
  const nlohmann::json& v = *value;
  if (v.is_number()) return fmt::format("{:.3g}{}", v.get<double>() * scale, unit);
  if (v.is_object() && v.contains("unavailable"))
    return "unavailable (" + v["unavailable"].get<std::string>() + ")";
  return v.dump();
}

}  // namespace

void print_counters_beside_prediction(const L3Analysis& a, const std::filesystem::path& run_dir) {
  const std::vector<MeasuredPhase> measured = measured_phases(run_dir);
  fmt::print("\nmeasured (counters) beside predicted (trace) for this machine\n");
  if (const auto p = predicted_traffic_here(a)) {
    fmt::print(
        "  predicted TG ({}): L3 hit rate of routed-expert bytes {:.1f}% (hot set {:.1f}%), "
        "weight bytes from DRAM {:.3g} MB/token\n",
        p->target, 100 * p->hits.generation, 100 * p->hits.hot_generation,
        p->weight_dram_bytes / 1e6);
  } else {
    fmt::print("  predicted: none (hwloc reports no L3 here)\n");
  }
  for (const MeasuredPhase& m : measured)
    fmt::print("  {} t={} N_KV={} {}: l3_hit_rate {}, dram_bytes_per_token {}\n", m.model,
               m.threads, m.n_kv, m.phase, counter_text(m.l3_hit_rate, 100, "%"),
               counter_text(m.dram_bytes_per_token, 1e-6, " MB"));
}

}  // namespace moesweep::cli
