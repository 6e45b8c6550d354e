#pragma once
// `moesweep l3-run`, the working-set experiment end to end: the machine's
// usable cache and its expert GEMV (`hw --cache`, measured once), a shape
// the engine can show a cache effect with (l3_pilot.hpp's ladder, or the
// verdict that this machine cannot, and why), then every pool in randomised
// blocks with the dense twin, routing traced, the cliff fitted with 95%
// intervals (report/working_set.hpp) and the cache models validated against
// the run's own traces (l3_validation_run.hpp). Each step is a sweep through
// RunSession; l3_result.json and l3_validation/ are written under the run's
// lock. It prints nothing: the CLI hears the steps and prints the outcome.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "experiments/l3_pilot.hpp"
#include "experiments/l3_validation_run.hpp"
#include "hw/cache_probe.hpp"
#include "report/working_set.hpp"
#include "results/sink.hpp"

namespace moesweep {

struct L3RunOptions {
  L3RunSettings run;
  std::filesystem::path out_dir = "results/runs";
  std::string db;                         // "" = no database
  bool dense = true;                      // the dense twin of the same active bytes beside
  std::vector<std::string> command_line;  // meta.json's
  // A listener for each sweep's progress (the CLI's), or none.
  std::function<std::unique_ptr<RunListener>()> progress;
};

// l3_result.json, typed.
struct L3RunReport {
  std::string started, load_before;  // UTC; /proc/loadavg's three figures
  nlohmann::json kernel;             // hw --cache's expert GEMV (kernel_summary_json)
  std::vector<PilotResult> pilots;
  std::string verdict;  // why no shape can show a cache effect; "" when one was chosen
  // The experiment's, once a shape was chosen:
  std::string shape;
  int dense_ff = 0;
  std::optional<WorkingSet> working_set;
  nlohmann::json validation;     // validation.json's content
  std::string validation_error;  // why the validation failed ("" when it did not)
  std::string finished, load_after;
  std::filesystem::path run;
};
nlohmann::json to_json(const L3RunReport& r);

// What the experiment tells as it goes. Any may be empty.
struct L3RunEvents {
  std::function<void()> measuring_cache;               // `hw --cache` is measuring (minutes)
  std::function<void(const CacheProbeResult&)> cache;  // the usable cache
  std::function<void(const PilotResult&)> pilot;       // each pilot, once measured
};

struct L3RunOutcome {
  L3RunReport report;
  std::filesystem::path result_file;  // l3_result.json ("" when no pilot made a run)
  std::optional<L3ValidationOutput> validation;
};

// Runs the experiment; l3_result.json goes into its run, or with the verdict
// into the best pilot's. UserError for what the user must fix, before the
// cache probe, a twin or a pilot folder (check_l3_run_options).
L3RunOutcome run_l3_experiment(const L3RunOptions& o, const L3RunEvents& events = {});

// Plans the experiment of the first shape without running it: every setting
// is checked (UserError) before the cache probe, a twin or a pilot folder.
void check_l3_run_options(const L3RunOptions& o);

// One sweep of `settings` (l3-run's database, command line and progress) to
// its end into `out_dir`, routing traced with `trace`: its run and its points.
struct L3Sweep {
  std::filesystem::path run;
  std::vector<Record> records;
};
L3Sweep run_l3_sweep(std::map<std::string, nlohmann::json> settings, const L3RunOptions& o,
                     const std::filesystem::path& out_dir, bool trace);

}  // namespace moesweep
