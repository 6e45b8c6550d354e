// The working-set analysis as plot data, JSON and report.md's section.
#include <fmt/format.h>

#include <cmath>

#include "report/working_set.hpp"

namespace moesweep {
namespace {

nlohmann::json interval_json(const Interval& i) {
  return {{"value", i.value}, {"lo", i.lo}, {"hi", i.hi}};
}

nlohmann::json optional_number(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json curve_json(const WorkingSetCurve& c) {
  nlohmann::json s = {{"label", c.label},
                      {"skew", c.skew},
                      {"n_kv", c.n_kv},
                      {"threads", c.threads},
                      {"quant", c.quant},
                      {"expert_ff", c.expert_ff},
                      {"verdict", c.verdict},
                      {"memory_bound_share", optional_number(c.memory_bound_share)},
                      {"routed_bytes_per_token", c.routed_bytes_per_token},
                      {"hot_bytes_per_token", c.hot_bytes_per_token},
                      {"kernel_out_of_cache_gbps", c.kernel_out_gbps},
                      {"kernel_in_cache_gbps", c.kernel_in_gbps}};
  for (const WorkingSetPoint& p : c.points) {
    s["x"].push_back(p.pool_bytes);
    s["s_tg"].push_back(p.mean);
    s["s_tg_err"].push_back(p.ci95);
    s["samples"].push_back(p.samples);
    s["blocks"].push_back(p.blocks);
    s["eff_tg"].push_back(p.efficiency > 0 ? nlohmann::json(p.efficiency) : nlohmann::json());
  }
  const CliffResult& k = c.cliff;
  nlohmann::json fit = {{"position_bytes", interval_json(k.position)},
                        {"drop", interval_json(k.drop)},
                        {"ratio", interval_json(k.ratio)},
                        {"hi", k.fit.hi},
                        {"lo", k.fit.lo},
                        {"width", k.fit.width},
                        {"resolved", k.resolved},
                        {"bootstrap", k.bootstrap}};
  if (!c.points.empty()) {  // the fitted curve, 64 points over the span
    const double a = std::log(c.points.front().pool_bytes),
                 b = std::log(c.points.back().pool_bytes);
    for (int i = 0; i <= 64; ++i) {
      const double x = std::exp(a + (b - a) * i / 64);
      fit["x"].push_back(x);
      fit["y"].push_back(k.fit.at(x));
    }
  }
  if (k.dense_over_in_cache) fit["dense_over_in_cache"] = interval_json(*k.dense_over_in_cache);
  if (k.dense_over_out_of_cache)
    fit["dense_over_out_of_cache"] = interval_json(*k.dense_over_out_of_cache);
  s["fit"] = fit;
  return s;
}

std::string mib_figure(double bytes) {
  return fmt::format("{:.2f}", bytes / (1 << 20));
}

std::string interval_text(const Interval& i, double scale, const char* unit) {
  return fmt::format("{:.2f}{} [{:.2f} - {:.2f}]", i.value * scale, unit, i.lo * scale,
                     i.hi * scale);
}

}  // namespace

nlohmann::json to_json(const WorkingSet& ws) {
  nlohmann::json series = nlohmann::json::array(), dense = nlohmann::json::array();
  for (const WorkingSetCurve& c : ws.curves) series.push_back(curve_json(c));
  for (const DenseReference& d : ws.dense)
    dense.push_back({{"label", fmt::format("dense twin N_KV={} t={}", d.n_kv, d.threads)},
                     {"n_kv", d.n_kv},
                     {"threads", d.threads},
                     {"s_tg", d.mean},
                     {"s_tg_err", d.ci95},
                     {"samples", d.samples}});
  return {{"l3_bytes", ws.l3_nominal > 0 ? nlohmann::json(ws.l3_nominal) : nlohmann::json()},
          {"l3_effective_bytes",
           ws.l3_effective > 0 ? nlohmann::json(ws.l3_effective) : nlohmann::json()},
          {"memory_bound_threshold", kMemoryBoundShare},
          {"series", series},
          {"dense", dense}};
}

nlohmann::json working_set_data(const std::vector<Record>& records) {
  const auto ws = analyse_working_set(records);
  return ws ? to_json(*ws) : nlohmann::json(nullptr);
}

std::string working_set_markdown(const WorkingSet& ws) {
  std::string out = "## Working set against the L3\n\n";
  out += fmt::format(
      "L3: measured usable {} MiB, nominal (hwloc) {} MiB. Memory-bound check: the "
      "experts' share of a token at the kernel's out-of-cache speed must be at "
      "least {:.0f}% (report/working_set.hpp says why).\n\n",
      ws.l3_effective > 0 ? mib_figure(ws.l3_effective) : "not measured",
      ws.l3_nominal > 0 ? mib_figure(ws.l3_nominal) : "unknown", 100 * kMemoryBoundShare);
  out +=
      "| curve | points | memory-bound share | cliff position (MiB of pool) [95% CI] | drop "
      "[95% CI] | dense / MoE in cache | dense / MoE out of cache | verdict |\n";
  out += "|---|--:|--:|---|---|---|---|---|\n";
  for (const WorkingSetCurve& c : ws.curves) {
    const CliffResult& k = c.cliff;
    out += fmt::format(
        "| {} | {} | {} | {} | {} | {} | {} | {} |\n", c.label, c.points.size(),
        c.memory_bound_share ? fmt::format("{:.0f}%", 100 * *c.memory_bound_share) : "unknown",
        interval_text(k.position, 1.0 / (1 << 20), ""), interval_text(k.drop, 100, "%"),
        k.dense_over_in_cache ? interval_text(*k.dense_over_in_cache, 1, "") : "-",
        k.dense_over_out_of_cache ? interval_text(*k.dense_over_out_of_cache, 1, "") : "-",
        c.verdict);
  }
  return out + "\n";
}

}  // namespace moesweep
