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

void write_fleet_files(const std::filesystem::path& dir, const std::string& plan_id,
                       const nlohmann::json& runs_index, const std::vector<FleetMember>& members) {
  write_file_atomically(dir / "fleet.md",
                        "# fleet: plan " + plan_id + "\n\n" + fleet_table(members));
  const nlohmann::json index = {
      {"plan_id", plan_id}, {"runs", runs_index}, {"table", fleet_table_json(members)}};
  write_file_atomically(dir / "fleet.json", index.dump(2) + "\n");
}

int report_fleet(const std::filesystem::path& dir, const FleetReportOptions& options) {
  const Fleet fleet = load_fleet(dir);
  const nlohmann::json index = read_json_file(dir / "fleet.json", "fleet index");
  write_fleet_files(dir, fleet.plan_id, index.value("runs", nlohmann::json::array()),
                    fleet.members);
  fmt::print("{}", fleet_table(fleet.members));
  fmt::print(stderr, "[report] {} machine class(es) -> {}\n", fleet.members.size(),
             (dir / "fleet.md").string());
  if (!options.plots) return exit_code::kOk;
  const int n_kv = options.n_kv >= 0 ? options.n_kv : fleet_depth(fleet.members, false);
  std::string why;
  const nlohmann::json figure = fleet_figure_data(fleet.members, n_kv, &why);
  if (figure.is_null()) {
    fmt::print(stderr, "moesweep: warning: no fleet figure: {}\n", why);
    return exit_code::kOk;
  }
  const PlotOutcome drawn =
      draw_plots({{"title", "fleet " + fleet.plan_id}, {"fleet", figure}}, dir);
  for (const auto& png : drawn.pngs) fmt::print("plot       {}\n", png.string());
  if (drawn.pngs.empty()) fmt::print(stderr, "moesweep: warning: no plots: {}\n", drawn.problem);
  return exit_code::kOk;
}

}  // namespace moesweep::cli
