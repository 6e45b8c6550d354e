#include "report/fleet_table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "predict/cost_per_token.hpp"
#include "util/error.hpp"
#include "util/markdown_table.hpp"

namespace moesweep {
namespace {

std::string speed(double v) {
  return v > 0 ? fmt::format("{:.1f}", v) : "-";
}

nlohmann::json number_or_null(double v) {
  return v > 0 ? nlohmann::json(v) : nlohmann::json(nullptr);
}

std::string l3_mib(const FleetMember& m) {
  const auto& mc = m.meta.machine_class;
  return mc && mc->l3_bytes ? fmt::format("{:.0f}", static_cast<double>(*mc->l3_bytes) / (1 << 20))
                            : "-";
}

// The bandwidth the efficiency is taken against: the probe's figure at the
// best decode's thread count, else the host's peak.
std::string bandwidth_cell(const FleetHost& h) {
  if (!h.bandwidth_gbps) return "not measured";
  return h.bandwidth_threads > 0
             ? fmt::format("{:.1f} ({} threads)", *h.bandwidth_gbps, h.bandwidth_threads)
             : fmt::format("{:.1f} (peak)", *h.bandwidth_gbps);
}

nlohmann::json depth_json(const FleetHost& h) {
  return {{"n_kv", h.n_kv},
          {"bandwidth_gbps", h.bandwidth_gbps ? nlohmann::json(*h.bandwidth_gbps) : nullptr},
          {"bandwidth_threads", h.bandwidth_threads},
          {"s_pp", number_or_null(h.s_pp)},
          {"s_tg", number_or_null(h.s_tg)},
          {"bytes_per_token", number_or_null(h.bytes_per_token)},
          {"roofline_tg", h.roofline_tps ? nlohmann::json(*h.roofline_tps) : nullptr},
          {"efficiency_tg", h.efficiency ? nlohmann::json(*h.efficiency) : nullptr},
          {"efficiency_text", h.efficiency_text}};
}

// "v0.4.0 80fb11a GGML_NATIVE"; the target is absent in runs before it was recorded.
std::string engine_of(const FleetMember& m) {
  if (!m.meta.build) return "? ?";
  const BuildFacts& build = *m.meta.build;
  std::string out =
      fmt::format("{} {}", build.engine.release.empty() ? "?" : build.engine.release,
                  build.engine.commit.empty() ? "?" : build.engine.commit.substr(0, 7));
  if (!build.engine_target.empty()) out += fmt::format(" {}", build.engine_target);
  return out;
}

// The host's hardware profile, when this checkout has it (its price and power).
std::optional<HardwareProfile> profile_of(const FleetHost& h) {
  if (h.hardware_profile.empty()) return std::nullopt;
  try {
    return load_hardware_profile(h.hardware_profile);
  } catch (const UserError&) {
    return std::nullopt;
  }
}

// Decode tokens/s per $1000 and joules per token at the host's best S_TG,
// where its profile has a public price and power.
CostPerToken host_cost(const FleetHost& h) {
  const auto p = profile_of(h);
  return p ? cost_per_token(*p, h.s_tg) : CostPerToken{};
}

}  // namespace

std::string fleet_engine_note(const std::vector<FleetMember>& members) {
  std::vector<std::string> engines;
  bool differ = false;
  for (const FleetMember& m : members) {
    engines.push_back(engine_of(m));
    differ = differ || engines.back() != engines.front();
  }
  if (!differ) return "";
  std::vector<std::string> named;
  for (size_t i = 0; i < members.size(); ++i) {
    const NodeFacts node = members[i].meta.node.value_or(NodeFacts{"?", "", "", 0, {}});
    named.push_back(fmt::format("{} ({} CPUs): {}", node.host, node.logical_cpus, engines[i]));
  }
  return fmt::format(
      "Engine builds differ across hosts, so their speeds mix hardware with build: {}.",
      fmt::join(named, "; "));
}

namespace {

// A terminal's fleet table: the hosts, their bandwidth and decode at the
// shallow and (when another) the deep depth; CPU, L3, cost and energy are in
// fleet.md.
std::string compact_fleet_table(const std::vector<FleetMember>& members, int shallow, int deep,
                                const std::vector<FleetHost>& at0,
                                const std::vector<FleetHost>& at1) {
  const bool two = deep != shallow;
  std::vector<std::string> header = {"hosts", "bandwidth GB/s", fmt::format("S_PP @{}", shallow),
                                     fmt::format("S_TG @{}", shallow),
                                     fmt::format("eff. @{}", shallow)};
  if (two)
    header.insert(header.end(), {fmt::format("S_PP @{}", deep), fmt::format("S_TG @{}", deep),
                                 fmt::format("eff. @{}", deep)});
  header.push_back("points");
  MarkdownTable t(header);
  for (size_t i = 0; i < members.size(); ++i) {
    const FleetHost &a = at0[i], &b = at1[i];
    std::vector<std::string> row = {a.hosts, bandwidth_cell(a), speed(a.s_pp), speed(a.s_tg),
                                    a.efficiency_text};
    if (two) row.insert(row.end(), {speed(b.s_pp), speed(b.s_tg), b.efficiency_text});
    row.push_back(fmt::format("{}", members[i].records.size()));
    t.add_row(row);
  }
  return t.render() +
         "\n(CPU, L3, t/s per $1k and J/token: fleet.md, moesweep report on the fleet)\n";
}

}  // namespace

std::string fleet_table(const std::vector<FleetMember>& members, TableWidth width) {
  const int shallow = fleet_depth(members, false), deep = fleet_depth(members, true);
  const auto at0 = fleet_hosts(members, shallow), at1 = fleet_hosts(members, deep);
  if (width == TableWidth::kCompact) return compact_fleet_table(members, shallow, deep, at0, at1);
  MarkdownTable t({"hosts", "CPU", "CPUs", "L3 MiB", "bandwidth GB/s",
                   fmt::format("S_PP @{}", shallow), fmt::format("S_TG @{}", shallow),
                   fmt::format("decode eff. @{}", shallow), fmt::format("S_PP @{}", deep),
                   fmt::format("S_TG @{}", deep), fmt::format("decode eff. @{}", deep),
                   fmt::format("t/s per $1k @{}", shallow), fmt::format("J/token @{}", shallow),
                   "points"});
  for (size_t i = 0; i < members.size(); ++i) {
    const FleetHost &a = at0[i], &b = at1[i];
    const CostPerToken c = host_cost(a);
    t.add_row({a.hosts, a.cpu, fmt::format("{}", a.logical_cpus), l3_mib(members[i]),
               bandwidth_cell(a), speed(a.s_pp), speed(a.s_tg), a.efficiency_text, speed(b.s_pp),
               speed(b.s_tg), b.efficiency_text,
               c.tps_per_kusd ? fmt::format("{:.3f}", *c.tps_per_kusd) : "-",
               c.joules_per_token ? fmt::format("{:.1f}", *c.joules_per_token) : "-",
               fmt::format("{}", members[i].records.size())});
  }
  return t.render() +
         "\nt/s per $1k and J/token: at the best S_TG, from the host's hardware profile's "
         "price and power where it names a public figure (`-` where it has none).\n";
}

nlohmann::json fleet_table_json(const std::vector<FleetMember>& members) {
  const int shallow = fleet_depth(members, false), deep = fleet_depth(members, true);
  const auto at0 = fleet_hosts(members, shallow), at1 = fleet_hosts(members, deep);
  nlohmann::json rows = nlohmann::json::array();
  for (size_t i = 0; i < members.size(); ++i) {
    const FleetHost& a = at0[i];
    const auto& mc = members[i].meta.machine_class;
    rows.push_back(
        {{"hosts", a.hosts},
         {"machine", a.machine},
         {"cpu", a.cpu},
         {"logical_cpus", a.logical_cpus},
         {"l3_bytes", mc && mc->l3_bytes ? nlohmann::json(*mc->l3_bytes) : nlohmann::json(nullptr)},
         {"bandwidth_gbps",
          a.bandwidth_gbps ? nlohmann::json(*a.bandwidth_gbps) : nlohmann::json(nullptr)},
         {"bandwidth_threads", a.bandwidth_threads},
         {"bandwidth_text", a.bandwidth_gbps ? "measured" : kNoBandwidth},
         {"tps_per_kusd", number_or_null(host_cost(a).tps_per_kusd.value_or(0))},
         {"joules_per_token", number_or_null(host_cost(a).joules_per_token.value_or(0))},
         {"shallow", depth_json(a)},
         {"deep", depth_json(at1[i])},
         {"points", members[i].records.size()}});
  }
  return rows;
}

}  // namespace moesweep
