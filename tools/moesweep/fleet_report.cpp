#include "fleet_report.hpp"

#include <fmt/format.h>

#include "report/fleet_figure.hpp"
#include "report/fleet_files.hpp"
#include "report/fleet_table.hpp"
#include "report/plots.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"
#include "util/terminal_text.hpp"

namespace moesweep::cli {

namespace {

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
    print_note("moesweep: warning: no plots: " + drawn.problem);
    return "";
  }
  return drawn.pngs.front().filename().string();
}

}  // namespace

int report_fleet(const std::filesystem::path& dir, const FleetReportOptions& options) {
  const Fleet fleet = load_fleet(dir);
  const nlohmann::json index = read_json_file(dir / "fleet.json", "fleet index");
  const std::string figure = options.plots ? draw_fleet_figure(fleet, options) : "";
  const std::string warning = write_fleet_files(
      dir, fleet.plan_id, index.value("runs", nlohmann::json::array()), fleet.members, figure);
  if (!warning.empty()) fmt::print(stderr, "moesweep: warning: {}\n", warning);
  fmt::print("{}", fleet_table(fleet.members, TableWidth::kCompact));
  fmt::print(stderr, "[report] {} machine class(es) -> {}\n", fleet.members.size(),
             (dir / "fleet.md").string());
  return exit_code::kOk;
}

}  // namespace moesweep::cli
