#include "results/compare_sides.hpp"

#include <fmt/format.h>

#include "results/baseline_store.hpp"
#include "results/engine_sides.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

// BASE as given, or, when it is a store of per-class baselines
// (results/baselines/ci), the class folder of NEW's machine class.
std::string base_for(const CompareSides& a, const LoadedRun& fresh) {
  if (!is_baseline_store(a.base)) return a.base;
  const MachineClass machine = fresh.meta ? machine_class_of(*fresh.meta) : MachineClass{};
  if (!machine.known) {
    throw UserError(
        fmt::format("'{}' has no meta.json, so its machine class is unknown", a.fresh),
        fmt::format("a run directory, whose class picks the baseline in '{}'", a.base),
        fmt::format("name the run directory, or one class folder of '{}' as BASE", a.base));
  }
  if (auto found = find_baseline_class(a.base, machine)) return found->dir.string();
  const auto classes = baseline_classes(a.base);
  // Allowed to cross classes and there is only one: use it (the report says so at the top).
  if (a.allow_environment_change && classes.size() == 1) return classes[0].dir.string();
  return require_baseline_class(a.base, machine).string();  // throws, naming the classes
}

}  // namespace

std::pair<LoadedRun, LoadedRun> load_compare_sides(const CompareSides& a) {
  if (a.engines.empty()) {
    if (a.fresh.empty())
      throw UserError("compare: only one run given", "BASE and NEW, or one run and --engines A,B",
                      "name the run to check, or two engines of the run with --engines");
    LoadedRun fresh = load_run(a.fresh, a.db);
    LoadedRun base = load_run(base_for(a, fresh), a.db);
    return {std::move(base), std::move(fresh)};
  }
  if (!a.fresh.empty())
    throw UserError("--engines with two runs", "one run: compare RUN --engines BASE,NEW",
                    "give the one run (sweep --engine a,b) whose two engines to compare");
  return engine_pair(load_run(a.base, a.db), a.engines);
}

}  // namespace moesweep
