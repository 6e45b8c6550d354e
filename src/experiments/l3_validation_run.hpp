#pragma once
// A working-set run read for the validation of the cache models
// (l3_validation.hpp): its MoE twins at the run's first thread count and
// depth, each with its samples of every block pooled, its bytes per token,
// and the routing trace the sweep wrote for it (--trace-routing); the
// kernel speeds and L3 sizes the records carry.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>

#include "analysis/l3_validation.hpp"
#include "report/plots.hpp"

namespace moesweep {

class RunLock;

struct ValidationRun {
  std::vector<ValidationPoint> points;
  ValidationRates rates;
  uint64_t nominal = 0, effective = 0;  // L3 bytes: hwloc's, measured
  int threads = 0;
};

// UserError naming the run and the fix when it cannot be validated.
ValidationRun read_validation_run(const std::filesystem::path& run);
nlohmann::json to_json(const Validation& v, const ValidationRun& in);

// A sweep's run directory (it has records.jsonl), as `moesweep l3 RUN` takes it.
bool is_run_directory(const std::filesystem::path& p);

// The cache models validated against a working-set run on this machine's L3
// domains, as written into RUN/l3_validation/.
struct L3ValidationOutput {
  ValidationRun in;
  Validation validation;
  nlohmann::json json;              // validation.json's content
  std::filesystem::path file;       // validation.json
  std::optional<PlotOutcome> plot;  // l3_validation.png, when asked for
};

// Validates and writes validation.json (and the plot when `plot`) while the
// run's `lock` is held: nothing else writes the run meanwhile. UserError when
// the run cannot be validated (no traces, no MoE twins).
L3ValidationOutput validate_l3_run(const std::filesystem::path& run, bool plot,
                                   const RunLock& lock);
// The same, taking the run's lock first (refused while a sweep writes the run).
L3ValidationOutput validate_l3_run(const std::filesystem::path& run, bool plot);

}  // namespace moesweep
