#include "results/engine_sides.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "util/error.hpp"
#include "util/parse_list.hpp"

namespace moesweep {

namespace {

// One record's engine build in a few words.
std::string engine_words(const Record& r) {
  if (!r.extra.engine) return "";
  const EngineStamp& e = *r.extra.engine;
  const std::string commit = e.commit.value_or("");
  std::string out = e.release.value_or("");
  if (out == "unknown") out.clear();  // a checkout without a release name: its commit says it
  if (!commit.empty()) out += (out.empty() ? "" : " ") + commit.substr(0, 10);
  if (!e.cpu_variant.value_or("").empty()) out += fmt::format(" ({})", *e.cpu_variant);
  if (e.build.value_or("").find("planted") != std::string::npos) out += " [" + *e.build + "]";
  if (!e.tool.value_or("").empty())  // engine add --exec: another program's output
    out += fmt::format("{}{} (ingested)", out.empty() ? "" : " ", *e.tool);
  if (!e.opts.value_or("").empty()) out += " " + *e.opts;  // ik_llama.cpp's switches (engine_side)
  // The name from extra.engine: engine_side() leaves it out of the key.
  if (!e.name.value_or("").empty()) out = *e.name + ": " + out;
  return out;
}

}  // namespace

// In the order of --engine: the plan numbers each cell's engines in that order
// (records arrive in the order their last repetitions finish, which the turns mix).
std::vector<std::string> engines_in(const LoadedRun& run) {
  std::vector<std::pair<int, std::string>> first;  // lowest point index, name
  for (const Record& r : run.records) {
    if (r.params.engine.empty()) continue;
    auto it = std::find_if(first.begin(), first.end(),
                           [&](const auto& f) { return f.second == r.params.engine; });
    if (it == first.end())
      first.emplace_back(r.point_index, r.params.engine);
    else
      it->first = std::min(it->first, r.point_index);
  }
  std::stable_sort(first.begin(), first.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> names;
  for (const auto& f : first) names.push_back(f.second);
  return names;
}

LoadedRun engine_side(const LoadedRun& run, const std::string& name) {
  LoadedRun side;
  side.label = run.label + ":" + name;
  side.source = run.source;
  side.run_id = run.run_id;
  side.run_dir = run.run_dir;
  side.meta = run.meta;
  side.notes = run.notes;
  side.pooled_runs = run.pooled_runs;
  // Worker engines take turns repetition by repetition; another program's
  // tool (engine add --exec) runs its repetitions in a block of its own.
  side.interleaved = true;
  for (const Record& r : run.records) {
    if (r.params.engine != name) continue;
    if (r.extra.engine && r.extra.engine->tool) side.interleaved = false;
    side.records.push_back(r);
    // Joined on every other field. The engine's own switches (engine_opts) are
    // part of what is compared, like the build: kept in the header's words.
    Record& kept = side.records.back();
    kept.params.engine.clear();
    if (!kept.params.engine_opts.empty() && kept.extra.engine)
      kept.extra.engine->opts = kept.params.engine_opts;
    kept.params.engine_opts.clear();
  }
  if (side.records.empty()) {
    std::string there;
    for (const std::string& e : engines_in(run)) there += (there.empty() ? "" : ", ") + e;
    throw UserError(
        fmt::format("{} has no point measured by engine '{}'", run.label, name),
        there.empty() ? std::string("a run of sweep --engine a,b") : "one of its engines: " + there,
        "name two engines of the run: --engines A,B");
  }
  return side;
}

std::pair<LoadedRun, LoadedRun> engine_pair(const LoadedRun& run, const std::string& list) {
  const std::vector<std::string> names = split_list(list, ',');
  if (names.size() != 2 || names[0] == names[1])
    throw UserError(fmt::format("--engines '{}' does not name two engines", list),
                    "two different engine names of one run: compare RUN --engines BASE,NEW",
                    "give the two engines of the run to put side by side");
  return {engine_side(run, names[0]), engine_side(run, names[1])};
}

std::string engine_summary(const LoadedRun& run) {
  std::vector<std::string> seen;
  for (const Record& r : run.records) {
    const std::string w = engine_words(r);
    if (!w.empty() && std::find(seen.begin(), seen.end(), w) == seen.end()) seen.push_back(w);
    if (seen.size() > 4) break;
  }
  std::string out;
  for (const std::string& w : seen) out += (out.empty() ? "" : "; ") + w;
  return out;
}

}  // namespace moesweep
