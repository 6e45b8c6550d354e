#include "report/fleet_figure.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "util/error.hpp"

namespace moesweep {
namespace {

constexpr int kLinePoints = 24;

// predict's bound over [lo, hi] GB/s for the fleet's bytes per token (one
// plan, so one figure; the median should twins of hosts differ).
nlohmann::json roofline_line(const std::vector<FleetHost>& drawn, double lo, double hi) {
  std::vector<double> bytes;
  for (const FleetHost& h : drawn) bytes.push_back(h.bytes_per_token);
  std::sort(bytes.begin(), bytes.end());
  const double b = bytes[bytes.size() / 2];
  nlohmann::json line = {{"bytes_per_token", b}};
  for (int i = 0; i < kLinePoints; ++i) {
    const double gbps = lo + (hi - lo) * i / (kLinePoints - 1);
    line["x"].push_back(gbps);
    line["y"].push_back(fleet_roofline_tps(drawn.front().hardware_profile, b, gbps));
  }
  return line;
}

// Every depth some member measured, ascending.
std::vector<int> recorded_depths(const std::vector<FleetMember>& members) {
  std::vector<int> depths;
  for (const FleetMember& m : members)
    for (const Record& r : m.records)
      if (r.ok && std::find(depths.begin(), depths.end(), r.params.n_kv) == depths.end())
        depths.push_back(r.params.n_kv);
  std::sort(depths.begin(), depths.end());
  return depths;
}

// One depth's hosts and roofline over [lo, hi] GB/s; null when no host is drawable there.
nlohmann::json depth_layer(const std::vector<FleetMember>& members, int n_kv, double lo,
                           double hi) {
  std::vector<FleetHost> drawn;
  nlohmann::json points = nlohmann::json::array();
  for (const FleetHost& h : fleet_hosts(members, n_kv)) {
    if (!h.efficiency) continue;
    drawn.push_back(h);
    points.push_back({{"label", h.hosts},
                      {"bandwidth_gbps", *h.bandwidth_gbps},
                      {"s_tg", h.s_tg},
                      {"efficiency", *h.efficiency}});
  }
  if (drawn.empty()) return nullptr;
  return {{"n_kv", n_kv}, {"hosts", points}, {"roofline", roofline_line(drawn, lo, hi)}};
}

}  // namespace

nlohmann::json fleet_figure_data(const std::vector<FleetMember>& members, int n_kv,
                                 std::string* why) {
  const std::vector<FleetHost> hosts = fleet_hosts(members, n_kv);
  std::vector<FleetHost> drawn;
  nlohmann::json points = nlohmann::json::array(), left_out = nlohmann::json::array();
  for (const FleetHost& h : hosts) {
    if (!h.efficiency) {
      left_out.push_back(fmt::format("{}: {}", h.hosts, h.efficiency_text));
      continue;
    }
    drawn.push_back(h);
    const std::string at = h.bandwidth_threads > 0 ? fmt::format("{} threads", h.bandwidth_threads)
                                                   : std::string("peak bandwidth");
    points.push_back({{"label", fmt::format("{} ({} CPUs, {})", h.hosts, h.logical_cpus, at)},
                      {"cpu", h.cpu},
                      {"bandwidth_gbps", *h.bandwidth_gbps},
                      {"s_tg", h.s_tg},
                      {"efficiency", *h.efficiency}});
  }
  if (drawn.empty()) {
    if (why) *why = fmt::format("no host has a measured bandwidth and S_TG at depth {}", n_kv);
    return nullptr;
  }
  double lo = *drawn.front().bandwidth_gbps, hi = lo;
  for (const FleetHost& h : drawn)
    lo = std::min(lo, *h.bandwidth_gbps), hi = std::max(hi, *h.bandwidth_gbps);
  nlohmann::json data = {{"n_kv", n_kv},
                         {"hosts", points},
                         {"left_out", left_out},
                         {"roofline", roofline_line(drawn, lo * 0.5, hi * 1.2)},
                         {"fit", nullptr}};
  if (drawn.size() >= 2) {
    const FleetFit fit = fit_fleet_efficiency(hosts, "");
    data["fit"] = {{"efficiency", fit.efficiency}, {"std_error", fit.std_error}};
  }
  // The roofline moves with depth (the KV read per token grows): one line,
  // and the hosts' points, per recorded depth.
  data["depths"] = nlohmann::json::array();
  for (int d : recorded_depths(members))
    if (nlohmann::json layer = depth_layer(members, d, lo * 0.5, hi * 1.2); !layer.is_null())
      data["depths"].push_back(std::move(layer));
  return data;
}

}  // namespace moesweep
