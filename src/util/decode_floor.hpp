#pragma once
// The physical floor of a decode's time: no engine computes a micro-batch
// (one graph over every layer, with its thread barriers) in under a
// microsecond; real ones take tens of microseconds for a tiny model,
// milliseconds for a real one. The engine's reported times are checked
// against it when measured (engine/timing_bounds.hpp), and every sample read
// back from a file against it too (results/run_source.cpp): a speed beyond
// it is no measurement.
#include <cstdint>

namespace moesweep {

inline constexpr double kMinSecondsPerStep = 1e-6;

// The floor for `tokens` decoded in micro-batches of `tokens_per_step`.
double decode_floor_s(int64_t tokens, int64_t tokens_per_step);

}  // namespace moesweep
