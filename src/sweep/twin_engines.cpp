// Which engines of a sweep load each twin, and in which layout
// (model/twin_layout.hpp): one file per twin that every engine measuring it
// reads, so engines are compared on the same bytes.
#include "sweep/twin_engines.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "engine/engine.hpp"
#include "model/twin_layout.hpp"
#include "sweep/twin_axes.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

EngineReads reads_of(const EngineChoice& e) {
  return {e.name.empty() ? "default" : e.name, e.release, e.reads, e.reads_known, e.max_experts};
}

// Lines of the plan's warnings for one twin: the engines left out and the layout taken.
void note_twin(const ModelGroup& mg, const ModelProfile& profile, const Plan& plan,
               const std::vector<std::string>& skipped, std::vector<std::string>& warnings) {
  for (const std::string& why : skipped)
    warnings.push_back(fmt::format("twin {}: {}; its points on that engine are left out",
                                   mg.choice.twin_profile, why));
  if (mg.twin_layout.is_newest()) return;
  std::vector<std::string> older;
  for (size_t e = 0; e < plan.engines.size(); ++e) {
    const EngineChoice& c = plan.engines[e];
    if (c.reads_known && !layout_for(profile, {reads_of(c)}).is_newest())
      older.push_back(fmt::format("{} ({})", reads_of(c).engine, c.release));
  }
  warnings.push_back(fmt::format(
      "twin {} is written with {}: the layout every engine of this sweep loads (older: {})",
      mg.choice.twin_profile, mg.twin_layout.describe(), fmt::join(older, ", ")));
}

}  // namespace

void fill_engine_reads(EngineChoice& e, const RegisteredEngine& registered) {
  if (e.is_exec()) return;  // another program: it cannot say, and constrains nothing
  e.reads = registered.reads;
  e.max_experts = registered.max_experts;
  e.reads_known = !registered.reads.empty();
  if (e.reads_known) return;
  try {  // registered before engines recorded it: its worker says
    const EngineFacts& f = engine_facts(e.worker);
    e.reads = f.reads;
    e.max_experts = f.max_experts;
    e.reads_known = !f.reads.empty();
  } catch (const std::exception&) {
    // a worker that does not start fails its points when the sweep reaches them
  }
}

void choose_twin_layouts(Plan& plan) {
  std::vector<std::string> notes;
  for (ModelGroup& mg : plan.models) {
    if (!mg.choice.file.empty()) continue;  // a file is what it is; the engine says if it cannot
    const ModelProfile profile = twin_spec_of(mg.choice, mg.knobs, plan.spec).profile;
    std::vector<EngineReads> loading;
    std::vector<std::string> skipped;
    for (size_t e = 0; e < plan.engines.size(); ++e) {
      const std::string why = cannot_load_reason(profile, reads_of(plan.engines[e]));
      if (why.empty())
        loading.push_back(reads_of(plan.engines[e]));
      else
        mg.skip_engines.push_back(e), skipped.push_back(why);
    }
    for (const EngineChoice& also : plan.twin_for)  // suited where it can load the twin at all
      if (!loading.empty() && cannot_load_reason(profile, reads_of(also)).empty())
        loading.push_back(reads_of(also));
    if (loading.empty())
      throw UserError(
          fmt::format("no engine of this sweep loads twin {}: {}", mg.choice.twin_profile,
                      fmt::join(skipped, "; ")),
          "at least one engine that loads this twin (its architecture, its expert count)",
          "add a newer engine to --engine, sweep another twin, or give --experts within the "
          "engine's limit");
    mg.twin_layout = layout_for(profile, loading);
    (void)with_layout(twin_spec_of(mg.choice, mg.knobs, plan.spec), mg.twin_layout);  // refusals
    note_twin(mg, profile, plan, skipped, notes);
  }
  for (std::string& n : notes)  // once per twin, not per model group
    if (std::find(plan.warnings.begin(), plan.warnings.end(), n) == plan.warnings.end())
      plan.warnings.push_back(std::move(n));
}

}  // namespace moesweep
