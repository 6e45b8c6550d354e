#include "report/working_set.hpp"

#include <fmt/format.h>

#include <map>
#include <set>
#include <tuple>

namespace moesweep {
namespace {

const nlohmann::json* roofline_of(const Record& r) {
  if (!r.ok || !r.extra.is_object() || !r.extra.contains("roofline")) return nullptr;
  const nlohmann::json& j = r.extra["roofline"];
  return j.is_object() && j.contains("routed_expert_bytes_per_layer") ? &j : nullptr;
}

nlohmann::json number_or_null(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key] : nlohmann::json(nullptr);
}

// One curve: the MoE twins of one skew, depth, thread count and quant.
using CurveKey = std::tuple<double, int, int, std::string>;

std::string curve_label(const CurveKey& k, bool many_threads, bool many_quants) {
  std::string label = fmt::format("skew s={} N_KV={}", std::get<0>(k), std::get<1>(k));
  if (many_threads) label += fmt::format(" t={}", std::get<2>(k));
  if (many_quants) label += fmt::format(" {}", std::get<3>(k));
  return label;
}

}  // namespace

nlohmann::json working_set_data(const std::vector<Record>& records) {
  std::map<CurveKey, std::map<uint64_t, const Record*>> curves;
  std::set<uint64_t> sizes;
  std::set<int> threads;
  std::set<std::string> quants;
  nlohmann::json dense = nlohmann::json::array();
  nlohmann::json l3 = nullptr;
  for (const Record& r : records) {
    const nlohmann::json* roof = roofline_of(r);
    if (!roof) continue;
    if (roof->contains("l3_bytes")) l3 = (*roof)["l3_bytes"];
    const uint64_t bytes = (*roof)["routed_expert_bytes_per_layer"].get<uint64_t>();
    const nlohmann::json eff = number_or_null(*roof, "efficiency_tg");
    if (bytes == 0) {
      dense.push_back({{"label", fmt::format("dense twin N_KV={}", r.params.n_kv)},
                       {"model", r.params.model_name},
                       {"n_kv", r.params.n_kv},
                       {"s_tg", r.tg.speed.mean},
                       {"eff_tg", eff}});
      continue;
    }
    sizes.insert(bytes);
    threads.insert(r.params.n_threads);
    quants.insert(r.params.quant);
    curves[{r.params.routing_skew, r.params.n_kv, r.params.n_threads, r.params.quant}][bytes] = &r;
  }
  if (sizes.size() < 2) return nullptr;  // not an expert-count experiment
  nlohmann::json series = nlohmann::json::array();
  for (const auto& [key, points] : curves) {
    nlohmann::json s = {{"label", curve_label(key, threads.size() > 1, quants.size() > 1)},
                        {"skew", std::get<0>(key)},
                        {"n_kv", std::get<1>(key)}};
    for (const auto& [bytes, r] : points) {
      s["x"].push_back(bytes);
      s["s_tg"].push_back(r->tg.speed.mean);
      s["s_tg_err"].push_back(r->tg.speed.ci95);
      s["eff_tg"].push_back(number_or_null(r->extra["roofline"], "efficiency_tg"));
    }
    series.push_back(s);
  }
  return {{"l3_bytes", l3}, {"series", series}, {"dense", dense}};
}

}  // namespace moesweep
