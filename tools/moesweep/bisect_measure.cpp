#include "bisect_measure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "counters/sim_backend.hpp"
#include "engine_sweep.hpp"
#include "results/count_compare.hpp"
#include "results/run_source.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"
#include "util/run_command.hpp"

namespace moesweep::cli {
namespace fs = std::filesystem;

BisectMetric parse_bisect_metric(const std::string& text) {
  std::string known;
  for (const char* phase : {"pp_", "tg_"})
    for (const CountMetric& m : count_metrics()) {
      const std::string name = phase + std::string(m.field);
      if (name == text) return {text, phase[0] == 't', m.field};
      known += (known.empty() ? "" : ", ") + name;
    }
  throw UserError(fmt::format("--metric '{}' is no count per token", text.substr(0, 80)),
                  "one of " + known, "e.g. --metric tg_instructions_per_token");
}

namespace {

constexpr const char* kAnnotate = "callgrind_annotate --threshold=100";

// The cell common to both that grew most, and its growth (new / good - 1);
// UserError when they share none.
std::pair<std::string, double> worst_cell(const CellValues& good, const CellValues& fresh) {
  std::pair<std::string, double> worst{"", -INFINITY};
  for (const auto& [key, value] : good)
    if (const auto it = fresh.find(key);
        it != fresh.end() && value > 0 && it->second / value - 1 > worst.second)
      worst = {key, it->second / value - 1};
  if (!std::isfinite(worst.second))
    throw UserError("the good and the measured build share no point", "the same profile for both",
                    "keep --profile the same");
  return worst;
}

}  // namespace

CountedBuild measure_counts(const std::string& engine, const std::string& profile,
                            const BisectMetric& metric, const fs::path& out_dir,
                            const std::string& twin_for) {
  EngineSweep sweep{profile,
                    {{"engine", engine}, {"counters", "sim"}, {"sim-keep-dumps", true}},
                    out_dir,
                    {},
                    true};
  if (!twin_for.empty()) sweep.overrides["twin-for"] = twin_for;
  const EngineSweepRun run = run_engine_sweep(sweep);
  if (run.status == RunStatus::kInterrupted)
    throw UserError("bisect was interrupted", "a finished measurement", "run bisect again",
                    exit_code::kInterrupted);
  CountedBuild out;
  for (const Record& r : load_run(run.dir.string(), {}).records) {
    const nlohmann::json& c = (metric.tg ? r.tg : r.pp).counters;
    if (!r.ok || !c.is_object() || !c.contains(metric.field) || !c[metric.field].is_number())
      continue;
    PointParams point = r.params;
    point.engine.clear();  // each build is another engine: the cell is the rest of the key
    out.cells.emplace(point.key_string(), c[metric.field].get<double>());
    if (const fs::path dump = counters::last_kept_dump(c); !dump.empty())
      out.dumps.emplace(point.key_string(), run.dir / dump);
  }
  if (out.cells.empty())
    throw UserError(
        fmt::format("engine '{}' gave no {} (run {})", engine, metric.text, run.dir.string()),
        "counts of --counters sim in every point",
        "see the run's tables.md: valgrind, or a point that failed");
  return out;
}

std::string per_function_hint(const CountedBuild& good, const CountedBuild& bad) {
  const std::string cell = worst_cell(good.cells, bad.cells).first;
  const auto a = good.dumps.find(cell), b = bad.dumps.find(cell);
  if (a == good.dumps.end() || b == bad.dumps.end()) return "";
  // --threshold=100: every function. The frames open when the phase began
  // (main down to the worker's request loop) are listed with the whole phase's cost.
  return fmt::format("per function, the cell that grew most (good, then bad):\n  {} {}\n  {} {}",
                     kAnnotate, a->second.string(), kAnnotate, b->second.string());
}

double worst_growth(const CellValues& good, const CellValues& fresh) {
  return worst_cell(good, fresh).second;
}

void write_cell_values(const fs::path& file, const CellValues& v) {
  write_file_atomically(file, nlohmann::json(v).dump(2) + "\n");
}

CellValues read_cell_values(const fs::path& file) {
  const nlohmann::json j = read_json_file(file, "bisect's reference counts", 1 << 20);
  CellValues out;
  if (j.is_object())
    for (const auto& [key, value] : j.items())
      if (value.is_number()) out.emplace(key, value.get<double>());
  if (out.empty())
    throw UserError(fmt::format("{} holds no counts", file.string()),
                    "the good build's counts per point, as bisect wrote them", "run bisect again");
  return out;
}

std::string git_in(const fs::path& dir, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"git", "-C", dir.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  const CommandOutput r = run_command(argv);
  if (r.exit_code != 0)
    throw UserError(
        fmt::format("git {} in {} failed: {}", args.front(), dir.string(), first_line(r.err)),
        "a llama.cpp git checkout with both commits in its history",
        "check --checkout, --good and --bad (git log shows the commits)");
  return first_line(r.out);
}

std::string growth_text(double g) {
  return fmt::format("{:+.3f}%", 100 * g);
}

void bisect_say(const std::string& line) {
  fmt::print(stderr, "[bisect] {}\n", line);
}

}  // namespace moesweep::cli
