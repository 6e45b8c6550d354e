#include "report/fleet_files.hpp"

#include <fmt/format.h>

#include "report/fleet_table.hpp"
#include "util/json_file.hpp"

namespace moesweep {

bool is_fleet_dir(const std::filesystem::path& dir) {
  return std::filesystem::exists(dir / "fleet.json");
}

namespace {

// Under the table: the efficiency fitted across the hosts (2+ with a measured
// bandwidth) at the smallest depth, as `predict --calibrate` fits it.
std::string fit_line(const std::filesystem::path& dir, const std::vector<FleetMember>& members) {
  const auto hosts = fleet_hosts(members, fleet_depth(members, false));
  int fittable = 0;
  for (const FleetHost& h : hosts) fittable += h.efficiency.has_value();
  if (fittable < 2) return "";
  const FleetFit fit = fit_fleet_efficiency(hosts, dir.string());
  return fmt::format(
      "\nDecode efficiency fitted across {} hosts at N_KV={}: {:.1f}% of the roofline (standard "
      "error {:.1f} points; `moesweep predict --calibrate {}`).\n",
      fit.hosts.size(), fit.n_kv, 100 * fit.efficiency, 100 * fit.std_error, dir.string());
}

}  // namespace

std::string write_fleet_files(const std::filesystem::path& dir, const std::string& plan_id,
                              const nlohmann::json& runs_index,
                              const std::vector<FleetMember>& members, const std::string& figure) {
  std::string md =
      "# fleet: plan " + plan_id + "\n\n" + fleet_table(members) + fit_line(dir, members);
  const std::string note = fleet_engine_note(members);
  if (!note.empty()) md += "\n" + note + "\n";
  if (!figure.empty()) md += fmt::format("\n![{}]({})\n", figure, figure);
  write_file_atomically(dir / "fleet.md", md);
  const nlohmann::json index = {
      {"plan_id", plan_id}, {"runs", runs_index}, {"table", fleet_table_json(members)}};
  write_file_atomically(dir / "fleet.json", index.dump(2) + "\n");
  return note;
}

}  // namespace moesweep
