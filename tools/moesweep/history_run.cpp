#include "history_run.hpp"

#include <fmt/format.h>

#include "engine/engine.hpp"
#include "engine/engine_registry.hpp"
#include "engine/engine_spec.hpp"
#include "engine/release_pins.hpp"
#include "engine_sweep.hpp"
#include "history_entries.hpp"
#include "history_sweeps.hpp"
#include "report/history.hpp"
#include "report/plots.hpp"
#include "results/engine_sides.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"
#include "util/parse_list.hpp"
#include "util/terminal_text.hpp"
#include "util/utc_time.hpp"

namespace moesweep::cli {
namespace fs = std::filesystem;

namespace {

void history_say(const std::string& line) {
  print_note("[history] " + line);
}

std::vector<EngineSpec> specs_of(const HistoryArgs& a) {
  std::vector<EngineSpec> out;
  if (!a.releases.empty())
    for (const PinnedRelease& p : releases_in_range(a.releases)) {
      if (!p.known_issue.empty())  // measured anyway: a failure is said, not a regression
        history_say(fmt::format("{} ({}): known issue: {}", p.version, p.release, p.known_issue));
      if (p.unsupported.empty())
        out.push_back(resolve_engine_spec(p.version, "--releases"));
      else
        history_say(fmt::format("left out {} ({}): {}", p.version, p.release, p.unsupported));
    }
  else
    for (const std::string& e : split_list(a.engines))
      out.push_back(resolve_engine_spec(e, "--engines"));
  for (size_t i = 0; i < out.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (out[i].name == out[j].name)
        throw UserError(fmt::format("--engines names '{}' twice", out[i].name),
                        "each release once, in release order", "drop the second one");
  return out;
}

// The axis label and llama.cpp tag of an engine.
std::pair<std::string, std::string> label_of(const fs::path& registry, const EngineSpec& s) {
  if (s.build && !s.build->release.empty()) return {s.typed, supported_release(s.typed).release};
  if (s.name == kDefaultEngineName) return {s.name, engine_facts().release};
  return {s.name, find_engine(registry, s.name).release};
}

std::vector<HistoryEntry> measured_entries(const HistoryArgs& a, fs::path& dir) {
  const std::vector<EngineSpec> specs = specs_of(a);
  dir = fs::path(a.out_dir) / ("history-" + utc_now_compact());
  std::vector<std::string> names;
  for (const EngineSpec& s : specs) names.push_back(s.name);
  const std::vector<EngineSweep> sweeps = history_sweeps(a, names, dir);
  check_sweep_plan(sweeps.front());  // a bad profile is told now, not after N engine builds
  const fs::path registry = engine_registry_dir();
  if (a.dry_run) {
    for (const EngineSpec& s : specs)
      if (!is_registered(registry, s.name))
        history_say(fmt::format("would register: moesweep engine add {} {}", s.name,
                                s.build ? s.add_arguments : "(not registered: exit 2)"));
      else if (const std::string why =
                   s.build ? registered_worker_problem(registry, s.name) : std::string();
               !why.empty())
        history_say(fmt::format("would register again: moesweep engine add {} {} ({})", s.name,
                                s.add_arguments, why));
    for (const EngineSweep& sweep : sweeps) history_say("would run: " + sweep_command_text(sweep));
    return {};
  }
  for (const EngineSpec& s : specs) ensure_registered(registry, s, engine_add_progress);
  std::vector<LoadedRun> runs;
  for (const EngineSweepRun& run : measure_history(sweeps, a.counts ? a.jobs : 1)) {
    if (run.status == RunStatus::kInterrupted)
      throw UserError("the history's sweep was interrupted", "a finished sweep", "run it again",
                      exit_code::kInterrupted);
    runs.push_back(load_run(run.dir.string(), {}));
  }
  std::vector<HistoryEntry> entries;
  for (size_t i = 0; i < specs.size(); ++i) {
    const auto [label, tag] = label_of(registry, specs[i]);
    entries.push_back({label, tag, engine_side(runs[a.counts ? i : 0], specs[i].name)});
  }
  return entries;
}

std::vector<HistoryEntry> entries_of(const HistoryArgs& a, fs::path& dir) {
  if (!a.baselines.empty()) return stored_entries(a, dir);
  if (!a.run.empty()) return rerun_entries(a, dir);
  return measured_entries(a, dir);
}

}  // namespace

int run_history(const HistoryArgs& a) {
  if ((!a.engines.empty()) + (!a.releases.empty()) + (!a.baselines.empty()) + (!a.run.empty()) != 1)
    throw UserError("say which history",
                    "exactly one of --engines, --releases, --baselines and --run",
                    "e.g. moesweep history --releases 3.21.1..3.22.1");
  if (!(a.tolerance > 0 && a.tolerance < 100) || !(a.alpha > 0 && a.alpha < 1))
    throw UserError("--tolerance or --alpha out of range", "0 < tolerance < 100, 0 < alpha < 1",
                    "leave them at their defaults (0.5 and 0.01)");
  if (a.jobs > 1 && !a.counts)
    throw UserError("--jobs " + std::to_string(a.jobs) + " without --counts",
                    "--jobs with --counts only: wall-time releases take turns on one machine, "
                    "or their speeds say the load and not the release",
                    "add --counts, or leave --jobs out");
  fs::path dir;
  const std::vector<HistoryEntry> entries = entries_of(a, dir);
  if (a.dry_run) return exit_code::kOk;
  EDivisiveOptions wall{.alpha = a.alpha, .permutations = a.permutations};
  wall.min_step = a.min_step / 100;
  const History h = history_of(entries, {a.counts, a.tolerance / 100, wall});
  const fs::path out = a.baselines.empty() && a.run.empty()
                           ? dir
                           : fs::path(a.out_dir) / ("history-" + utc_now_compact());
  fs::create_directories(out);
  const std::string title =
      fmt::format("## History of {} release(s): {}", entries.size(), dir.string());
  write_file_atomically(out / "history.md", title + "\n\n" + history_markdown(h));
  const nlohmann::json plot = {{"title", "history"}, {"history", history_plot_data(h)}};
  write_file_atomically(out / "history.json", plot.dump(2) + "\n");
  const PlotOutcome drawn = draw_plots(plot, out);
  // The terminal's rendering: its prose wrapped, the tables' rows whole (issue 48).
  fmt::print("{}\n\n{}", fit(title, TableWidth::kCompact),
             history_markdown(h, TableWidth::kCompact));
  for (const fs::path& png : drawn.pngs) history_say("plot " + png.string());
  if (drawn.pngs.empty()) history_say("no plots: " + drawn.problem);
  history_say("written: " + (out / "history.md").string());
  return exit_code::kOk;
}

}  // namespace moesweep::cli
