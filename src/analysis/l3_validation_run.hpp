#pragma once
// A working-set run read for the validation of the cache models
// (l3_validation.hpp): its MoE twins at the run's first thread count and
// depth, each with its samples of every block pooled, its bytes per token,
// and the routing trace the sweep wrote for it (--trace-routing); the
// kernel speeds and L3 sizes the records carry.
#include <nlohmann/json.hpp>

#include <filesystem>

#include "analysis/l3_validation.hpp"

namespace moesweep {

struct ValidationRun {
  std::vector<ValidationPoint> points;
  ValidationRates rates;
  uint64_t nominal = 0, effective = 0;  // L3 bytes: hwloc's, measured
  int threads = 0;
};

// UserError naming the run and the fix when it cannot be validated.
ValidationRun read_validation_run(const std::filesystem::path& run);
nlohmann::json to_json(const Validation& v, const ValidationRun& in);

}  // namespace moesweep
