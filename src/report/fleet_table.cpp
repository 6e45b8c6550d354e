#include "report/fleet_table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "report/markdown_table.hpp"

namespace moesweep {
namespace {

// Best speed over thread settings at depth `n_kv` (0 when none was measured).
std::pair<double, double> best_at(const std::vector<Record>& records, int n_kv) {
  double pp = 0, tg = 0;
  for (const Record& r : records)
    if (r.ok && r.params.n_kv == n_kv) {
      pp = std::max(pp, r.pp.speed.mean);
      tg = std::max(tg, r.tg.speed.mean);
    }
  return {pp, tg};
}

std::string speed(double v) {
  return v > 0 ? fmt::format("{:.1f}", v) : "-";
}

}  // namespace

std::string fleet_table(const std::vector<FleetMember>& members) {
  int shallow = -1, deep = -1;
  for (const FleetMember& m : members)
    for (const Record& r : m.records)
      if (r.ok) {
        shallow = shallow < 0 ? r.params.n_kv : std::min(shallow, r.params.n_kv);
        deep = std::max(deep, r.params.n_kv);
      }
  MarkdownTable t({"hosts", "CPU", "CPUs", "L3 MiB", "bandwidth GB/s",
                   fmt::format("S_PP @{}", shallow), fmt::format("S_TG @{}", shallow),
                   fmt::format("S_PP @{}", deep), fmt::format("S_TG @{}", deep), "points"});
  for (const FleetMember& m : members) {
    const nlohmann::json node = m.meta.value("node", nlohmann::json::object());
    const nlohmann::json mc = m.meta.value("machine_class", nlohmann::json::object());
    const nlohmann::json l3 = mc.value("l3_bytes", nlohmann::json());
    std::vector<double> bw;
    for (const auto& s : m.meta["merge"].value("sources", nlohmann::json::array()))
      if (s.contains("bandwidth") && s["bandwidth"].is_object())
        bw.push_back(s["bandwidth"].value("gbps", 0.0));
    const double bandwidth = bw.empty() ? 0 : *std::max_element(bw.begin(), bw.end());
    const auto [pp0, tg0] = best_at(m.records, shallow);
    const auto [pp1, tg1] = best_at(m.records, deep);
    t.add_row({fmt::format("{}", fmt::join(m.meta.value("hosts", std::vector<std::string>{}), ",")),
               node.value("cpu_model", "?"), fmt::format("{}", node.value("logical_cpus", 0)),
               l3.is_number() ? fmt::format("{:.0f}", l3.get<double>() / (1 << 20)) : "-",
               bandwidth > 0 ? fmt::format("{:.1f}", bandwidth) : "-", speed(pp0), speed(tg0),
               speed(pp1), speed(tg1), fmt::format("{}", m.records.size())});
  }
  return t.render();
}

}  // namespace moesweep
