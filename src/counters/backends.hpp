#pragma once
// Constructors of the individual backends, for the factory and for tools that
// want one backend regardless of `auto` (moesweep counters).
#include <memory>

#include "counters/counter_backend.hpp"

namespace moesweep::counters {

std::unique_ptr<CounterBackend> make_none_backend();

// True when this process runs under `likwid-perfctr -m` (it sets LIKWID_FILEPATH
// and LIKWID_MODE for the marker API).
bool likwid_marker_mode();

// Wraps a backend so each repetition is also a likwid marker region named after
// the session's region, for likwid-perfctr -m to measure.
std::unique_ptr<CounterBackend> with_likwid_markers(std::unique_ptr<CounterBackend> inner);

}  // namespace moesweep::counters
