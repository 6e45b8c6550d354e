#include "engine/timing_bounds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace moesweep {

std::string implausible_time(const std::string& what, double seconds, int64_t tokens,
                             int64_t tokens_per_step, double wall_s) {
  if (!std::isfinite(seconds) || seconds <= 0)
    return fmt::format("{} took {} s for {} tokens: not a duration", what, seconds, tokens);
  const double floor = decode_floor_s(tokens, tokens_per_step);
  if (seconds < floor)
    return fmt::format(
        "{} took {:g} s for {} tokens, below the {:g} s no engine can beat ({:g} s per "
        "micro-batch of {}): not a time it measured",
        what, seconds, tokens, floor, kMinSecondsPerStep, std::max<int64_t>(1, tokens_per_step));
  // Both clocks are this machine's monotonic one, and the engine's interval
  // lies inside ours: anything longer, beyond rounding, is not a measurement.
  if (wall_s > 0 && seconds > wall_s * 1.001 + 1e-4)
    return fmt::format(
        "{} took {:g} s by its own count, but the whole call took {:g} s by "
        "moesweep's clock: not a time it measured",
        what, seconds, wall_s);
  return "";
}

}  // namespace moesweep
