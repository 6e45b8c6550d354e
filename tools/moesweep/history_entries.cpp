#include "history_entries.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "results/baseline_store.hpp"
#include "results/engine_sides.hpp"
#include "sweep/this_machine.hpp"
#include "util/error.hpp"

namespace moesweep::cli {
namespace fs = std::filesystem;

// The runs of one machine class, oldest first: a store's class of this
// machine, or a class folder itself.
std::vector<HistoryEntry> stored_entries(const HistoryArgs& a, fs::path& dir) {
  dir = a.baselines;
  if (is_baseline_store(dir)) dir = require_baseline_class(dir, this_machine_class());
  std::vector<fs::path> runs;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && fs::is_regular_file(e.path() / "records.jsonl"))
      runs.push_back(e.path());
  std::sort(runs.begin(), runs.end());  // run ids begin with their UTC start time
  std::vector<HistoryEntry> entries;
  for (const fs::path& r : runs) {
    LoadedRun run = load_run(r.string(), {});
    const std::string tag = run.meta && run.meta->build ? run.meta->build->engine.release : "";
    entries.push_back({r.filename().string(), tag, std::move(run)});
  }
  return entries;
}

// A finished history's sweep read again (--run): its engines in --engine's
// order, nothing measured (another --alpha or --min-step on the same samples).
std::vector<HistoryEntry> rerun_entries(const HistoryArgs& a, fs::path& dir) {
  if (a.counts)
    throw UserError("--run with --counts",
                    "--run names a wall-time history's sweep (one run of every release); a "
                    "--counts history is a run per release",
                    "leave --counts out, or measure the counts history again");
  const LoadedRun run = load_run(a.run, {});
  const std::vector<std::string> names = engines_in(run);
  if (names.size() < 2)
    throw UserError(fmt::format("run {} measured {} engine(s)", a.run, names.size()),
                    "a history's sweep: two or more engines (sweep --engine a,b,...)",
                    "give the run folder inside a history's folder (history-<time>/<run>)");
  std::vector<HistoryEntry> entries;
  for (const std::string& name : names) {
    LoadedRun side = engine_side(run, name);
    std::string tag;
    for (const Record& r : side.records)
      if (tag.empty() && r.extra.engine && r.extra.engine->release) tag = *r.extra.engine->release;
    entries.push_back({name, tag, std::move(side)});
  }
  dir = a.run;
  return entries;
}

}  // namespace moesweep::cli
