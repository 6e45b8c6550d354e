#pragma once
// The two sides `moesweep compare` joins: BASE and NEW as given; BASE a store
// of per-class baselines (results/baselines/ci), resolved to the class folder
// of NEW's machine class; or, with --engines A,B, two engines of the one run
// BASE (results/engine_sides.hpp).
#include <filesystem>
#include <string>
#include <utility>

#include "results/run_source.hpp"

namespace moesweep {

struct CompareSides {
  std::string base, fresh;  // as typed; fresh "" with engines
  std::string engines;      // "A,B": two engines of the run `base`
  std::filesystem::path db;
  bool allow_environment_change = false;  // a store with one class serves any machine
};

// BASE and NEW loaded. UserError (exit 2): one run without --engines, two
// runs with it, NEW without meta.json against a store, no baseline of NEW's
// class in the store (naming the classes there).
std::pair<LoadedRun, LoadedRun> load_compare_sides(const CompareSides& sides);

}  // namespace moesweep
