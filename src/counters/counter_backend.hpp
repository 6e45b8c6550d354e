#pragma once
// A narrow interface in the style of ggml-backend: the sweep runner knows only
// this header. Backends: "perf" (perf_event_open), "likwid" (liblikwid
// perfmon), "sim" (valgrind's simulated caches, sim_backend.hpp), "none". Each phase (PP or TG) of
// each point gets a session; the runner brackets every timed repetition with start()/stop(), and
// the session accumulates raw counts and derives the metrics once at result().
#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace moesweep::counters {

class CounterSession {
 public:
  virtual ~CounterSession() = default;
  virtual void start() = 0;
  // wall_s: the timed phase's wall time; tokens: tokens it processed.
  virtual void stop(double wall_s, int tokens) = 0;
  // metric name -> number, or {"unavailable": "reason"}; never an invented value.
  virtual nlohmann::json result() const = 0;
  // The last stop()'s figures token by token, where the backend has them
  // (sim with per-token dumps: {"ll_misses":[...],"instructions":[...]});
  // null otherwise.
  virtual nlohmann::json per_token() const { return nullptr; }
};

class CounterBackend {
 public:
  virtual ~CounterBackend() = default;
  virtual std::string name() const = 0;
  // Why this backend was chosen and what it can and cannot measure here
  // (goes into meta.json and `moesweep hw`).
  virtual nlohmann::json describe() const = 0;
  // The engine's threads may have been created or replaced (after a context
  // creation, a thread switch and its warm-up, a restarted engine worker):
  // re-attach to every thread of process `engine_pid` (0: this process).
  virtual void threads_changed(int engine_pid) = 0;
  // phase: "pp" or "tg"; region: a unique label (marker API region name).
  virtual std::unique_ptr<CounterSession> session(const std::string& phase,
                                                  const std::string& region) = 0;
  // A program the engine workers must run under for this backend to count
  // (sim: valgrind's callgrind), as argv with the worker to be appended;
  // empty for the backends that count from outside.
  virtual std::vector<std::string> worker_launcher() const { return {}; }
  // Where a backend whose counts come from a tool's own files (sim: the
  // callgrind dumps) keeps each once read, instead of deleting it: for the
  // tool's own analysis afterwards (callgrind_annotate). Others keep nothing.
  virtual void keep_raw_output_in(const std::filesystem::path& dir) { (void)dir; }
};

// A phase this backend cannot count (another program's benchmark, an exec
// engine): every metric it names (describe()["metrics"]) unavailable with
// `reason`; {} for a backend that names none (--counters none).
nlohmann::json not_counted(const CounterBackend& backend, const std::string& reason);

// choice: auto | perf | likwid | sim | none. Throws UserError for an unknown choice.
// `auto` picks the best backend that works here; describe()["why"] says why.
// Backends must outlive the sessions they hand out.
std::unique_ptr<CounterBackend> make_counter_backend(const std::string& choice);

// Where the backends look; tests point these at recorded copies.
struct CounterOptions {
  std::filesystem::path sysfs_root = "/sys";
  std::filesystem::path cpuinfo = "/proc/cpuinfo";
  std::filesystem::path profile_dir;  // empty: profiles/counters of the shipped data
  std::string sim_cache;              // --sim-cache for the sim backend ("" = its defaults)
  bool sim_per_token = false;         // --sim-per-token: a callgrind dump per generated token
  bool sim_keep_dumps = false;        // --sim-keep-dumps: dumps whole (names in each), then kept
};
// The defaults, with MOESWEEP_COUNTERS_SYSFS_ROOT / MOESWEEP_COUNTERS_CPUINFO
// applied (a sweep pointed at a recorded machine).
CounterOptions counter_options_from_environment();
std::unique_ptr<CounterBackend> make_counter_backend(const std::string& choice,
                                                     const CounterOptions& options);

}  // namespace moesweep::counters
