#include "util/decode_floor.hpp"

#include <algorithm>

namespace moesweep {

double decode_floor_s(int64_t tokens, int64_t tokens_per_step) {
  const int64_t per = std::max<int64_t>(1, tokens_per_step);
  const int64_t steps = std::max<int64_t>(1, (tokens + per - 1) / per);
  return static_cast<double>(steps) * kMinSecondsPerStep;
}

}  // namespace moesweep
