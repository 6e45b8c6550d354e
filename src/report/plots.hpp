#pragma once
// The plots of a report. C++ writes what to draw as JSON (plot_data.json);
// scripts/plot (Python + matplotlib) draws the PNGs. Keeping the drawing in a
// script lets users restyle plots without rebuilding, and keeps matplotlib a
// run-time option: without it the report still has every table.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "results/run_source.hpp"

namespace moesweep {

// Series for S_PP/S_TG vs N_KV, vs threads, and numeric counters vs N_KV.
// `reference` (may be empty) is drawn dashed beside the run.
nlohmann::json plot_data(const LoadedRun& run, const std::vector<LoadedRun>& references);

struct PlotOutcome {
  std::vector<std::filesystem::path> pngs;  // written and non-empty
  std::string problem;                      // why no plots, when pngs is empty
};

// Writes plot_data.json into `out_dir` and runs scripts/plot on it.
PlotOutcome draw_plots(const nlohmann::json& data, const std::filesystem::path& out_dir);

// scripts/plot: $MOESWEEP_PLOT_SCRIPT, else next to the shipped profiles/.
std::filesystem::path plot_script_path();

}  // namespace moesweep
