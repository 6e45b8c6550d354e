#pragma once
// --counters sim: counts that do not depend on the machine. The engine worker
// runs under valgrind's callgrind with a fixed simulated cache hierarchy
// (sim_cache.hpp); the worker zeroes callgrind's counts where its timer
// starts and dumps them where it stops (engine/worker/context_decode.cpp), so
// each timed phase is one callgrind dump. A session reads that dump
// (callgrind_dump.hpp) after the phase and sums the repetitions; the record
// gets, per phase and per token, instructions, data reads and writes, D1 and
// LL misses, the LL hit rate and the DRAM bytes the LL misses imply, each
// marked "simulated". valgrind runs the engine about 100x slower, and runs
// one thread at a time: counts are exact at one thread only (the sweep
// refuses more, sweep/sweep_spec.cpp).
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "counters/counter_backend.hpp"
#include "counters/sim_cache.hpp"
#include "util/temporary_folder.hpp"

namespace moesweep::counters {

// The fields a sim session fills, in record order.
const std::vector<std::string>& simulated_metric_names();

// The measured slowdown of a sweep under --counters sim against native
// (docs/counters.md): the dry run's estimate multiplies by it.
inline constexpr double kSimulatedSlowdown = 100;

// valgrind on PATH (an absolute path), or "" when there is none.
std::filesystem::path find_valgrind();

// The run directory's folder of kept dumps (--sim-keep-dumps).
inline constexpr const char* kKeptDumpFolder = "callgrind";

// The last dump a phase's record names (its counters.simulated.dumps),
// relative to the run; empty when it names none. A record is a file like any
// other: a name is taken only when it is a string naming a file directly in
// kKeptDumpFolder ("callgrind/../../x", "/x", "callgrind/" are no dump).
std::filesystem::path last_kept_dump(const nlohmann::json& phase_counters);

class SimBackend : public CounterBackend {
 public:
  // UserError (exit 2) when valgrind is not installed. `per_token`: the
  // worker dumps each generated token too (MOESWEEP_SIM_TOKEN_DUMPS=1 in its
  // environment), and sessions keep each token's counts (per_token()).
  // `keep_dumps`: each dump names every function it counts (callgrind
  // otherwise names a function once per process, in its first dump), so a
  // kept dump reads alone; keep_raw_output_in says where.
  explicit SimBackend(const SimCacheConfig& cache, bool per_token = false, bool keep_dumps = false);
  ~SimBackend() override;
  SimBackend(const SimBackend&) = delete;
  SimBackend& operator=(const SimBackend&) = delete;

  std::string name() const override { return "sim"; }
  nlohmann::json describe() const override;
  void threads_changed(int engine_pid) override { pid_ = engine_pid; }
  std::unique_ptr<CounterSession> session(const std::string& phase,
                                          const std::string& region) override;
  std::vector<std::string> worker_launcher() const override;
  // `run_dir`/callgrind/ (kKeptDumpFolder) receives the read dumps.
  void keep_raw_output_in(const std::filesystem::path& run_dir) override { run_dir_ = run_dir; }

  const SimCacheConfig& cache() const { return cache_; }
  bool per_token() const { return per_token_; }
  int pid() const { return pid_; }
  // The dumps of process `pid` written so far, oldest first (by part number).
  std::vector<std::filesystem::path> dumps_of(int pid) const;
  // Removes them (the untimed decodes' dumps: fills, warm-ups).
  void discard_dumps(int pid) const;
  // A timed phase's dump, read: removed, or moved to the kept folder as
  // `name` (keep_raw_output_in).
  struct Disposed {
    std::string kept;     // relative to the run: "callgrind/p0-tg-rep0.callgrind" ("" = not kept)
    std::string problem;  // why it was not kept ("" when it was, or was not asked to be)
  };
  Disposed dispose_dump(const std::filesystem::path& dump, const std::string& name) const;

 private:
  SimCacheConfig cache_;
  bool per_token_ = false;
  bool keep_dumps_ = false;
  std::filesystem::path valgrind_;
  std::unique_ptr<TemporaryFolder> dump_dir_;  // valgrind's output: private, removed with us
  std::filesystem::path run_dir_;              // "" = dumps are removed once read
  int pid_ = 0;
};

}  // namespace moesweep::counters

namespace moesweep::counters {

// The seven per-token fields from callgrind's events (Ir, Dr, Dw, I1mr, D1mr,
// D1mw, ILmr, DLmr, DLmw) of `tokens` tokens; {"unavailable": why} for each
// when an event is missing or no token was decoded.
nlohmann::json simulated_metrics(const std::map<std::string, uint64_t>& events, double tokens,
                                 int line_bytes);

}  // namespace moesweep::counters
