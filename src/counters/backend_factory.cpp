// --counters auto|perf|likwid|sim|none. `auto` prefers perf_event when it reaches
// hardware counters (per-thread software events, uncore deltas per phase),
// then likwid, and otherwise perf_event for the software events that work
// everywhere; describe()["why"] records the choice and what was tried. `auto`
// never picks sim: it changes how the engine runs (under valgrind, ~100x slower).
#include <fmt/format.h>

#include <cstdlib>

#include "counters/backends.hpp"
#include "counters/derived_metrics.hpp"
#include "counters/likwid_backend.hpp"
#include "counters/perf_backend.hpp"
#include "counters/sim_backend.hpp"
#include "util/error.hpp"

namespace moesweep::counters {
namespace {

std::unique_ptr<CounterBackend> choose_auto(const CounterOptions& options) {
  auto perf = std::make_unique<PerfBackend>(options);
  if (perf->hardware_measurable()) {
    perf->set_why("auto: perf_event reaches this CPU's hardware counters");
    return perf;
  }
  // Under likwid-perfctr -m the counters belong to likwid-perfctr: do not
  // program them a second time from inside the process.
  if (!likwid_marker_mode()) {
    auto likwid = std::make_unique<LikwidBackend>(options);
    if (likwid->usable()) {
      likwid->set_why("auto: perf_event has no hardware counters here, likwid's perfmon does");
      return likwid;
    }
    perf->set_why(fmt::format(
        "auto: no hardware counters reachable (perf_event: see metrics; likwid: {}); using "
        "perf_event for the software events",
        likwid->unavailable_reason()));
    return perf;
  }
  perf->set_why("auto: under likwid-perfctr -m (marker regions); perf_event for software events");
  return perf;
}

}  // namespace

nlohmann::json not_counted(const CounterBackend& backend, const std::string& reason) {
  const nlohmann::json described = backend.describe();
  std::vector<std::string> names;
  if (described.contains("metrics") && described["metrics"].is_object())
    for (const auto& [name, availability] : described["metrics"].items()) names.push_back(name);
  return all_unavailable(names, reason);
}

std::unique_ptr<CounterBackend> make_counter_backend(const std::string& choice,
                                                     const CounterOptions& options) {
  std::unique_ptr<CounterBackend> backend;
  if (choice == "none") {
    backend = make_none_backend();
  } else if (choice == "perf") {
    backend = std::make_unique<PerfBackend>(options);
  } else if (choice == "likwid") {
    backend = std::make_unique<LikwidBackend>(options);
  } else if (choice == "sim") {
    backend = std::make_unique<SimBackend>(parse_sim_cache(options.sim_cache),
                                           options.sim_per_token, options.sim_keep_dumps);
  } else if (choice == "auto") {
    backend = choose_auto(options);
  } else {
    throw UserError(fmt::format("--counters: unknown backend '{}'", choice),
                    "auto, perf, likwid, sim or none", "pick one of those");
  }
  if (likwid_marker_mode()) backend = with_likwid_markers(std::move(backend));
  return backend;
}

CounterOptions counter_options_from_environment() {
  // A sweep can be pointed at a recorded machine (tests/data/sysfs/<family>) to
  // see what it would record there; its events are encoded, never opened.
  CounterOptions options;
  if (const char* root = std::getenv("MOESWEEP_COUNTERS_SYSFS_ROOT"); root && *root)
    options.sysfs_root = root;
  if (const char* cpuinfo = std::getenv("MOESWEEP_COUNTERS_CPUINFO"); cpuinfo && *cpuinfo)
    options.cpuinfo = cpuinfo;
  return options;
}

std::unique_ptr<CounterBackend> make_counter_backend(const std::string& choice) {
  return make_counter_backend(choice, counter_options_from_environment());
}

}  // namespace moesweep::counters
