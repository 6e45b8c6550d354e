#include "fleet_report.hpp"

#include <fmt/format.h>

#include "report/fleet_figure.hpp"
#include "report/fleet_table.hpp"
#include "report/plots.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"

namespace moesweep::cli {

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

void write_fleet_files(const std::filesystem::path& dir, const std::string& plan_id,
                       const nlohmann::json& runs_index, const std::vector<FleetMember>& members,
                       const std::string& figure) {
  std::string md =
      "# fleet: plan " + plan_id + "\n\n" + fleet_table(members) + fit_line(dir, members);
  if (const std::string note = fleet_engine_note(members); !note.empty()) {
    md += "\n" + note + "\n";
    fmt::print(stderr, "moesweep: warning: {}\n", note);
  }
  if (!figure.empty()) md += fmt::format("\n![{}]({})\n", figure, figure);
  write_file_atomically(dir / "fleet.md", md);
  const nlohmann::json index = {
      {"plan_id", plan_id}, {"runs", runs_index}, {"table", fleet_table_json(members)}};
  write_file_atomically(dir / "fleet.json", index.dump(2) + "\n");
}

// The figure's PNG name when drawn, else "" (with the warning printed).
std::string draw_fleet_figure(const Fleet& fleet, const FleetReportOptions& options) {
  const int n_kv = options.n_kv >= 0 ? options.n_kv : fleet_depth(fleet.members, false);
  std::string why;
  const nlohmann::json figure = fleet_figure_data(fleet.members, n_kv, &why);
  if (figure.is_null()) {
    fmt::print(stderr, "moesweep: warning: no fleet figure: {}\n", why);
    return "";
  }
  const PlotOutcome drawn =
      draw_plots({{"title", "fleet " + fleet.plan_id}, {"fleet", figure}}, fleet.dir);
  for (const auto& png : drawn.pngs) fmt::print("plot       {}\n", png.string());
  if (drawn.pngs.empty()) {
    fmt::print(stderr, "moesweep: warning: no plots: {}\n", drawn.problem);
    return "";
  }
  return drawn.pngs.front().filename().string();
}

int report_fleet(const std::filesystem::path& dir, const FleetReportOptions& options) {
  const Fleet fleet = load_fleet(dir);
  const nlohmann::json index = read_json_file(dir / "fleet.json", "fleet index");
  const std::string figure = options.plots ? draw_fleet_figure(fleet, options) : "";
  write_fleet_files(dir, fleet.plan_id, index.value("runs", nlohmann::json::array()), fleet.members,
                    figure);
  fmt::print("{}", fleet_table(fleet.members));
  fmt::print(stderr, "[report] {} machine class(es) -> {}\n", fleet.members.size(),
             (dir / "fleet.md").string());
  return exit_code::kOk;
}

}  // namespace moesweep::cli
