#pragma once
// Bisection over an ordered list (releases, commits): the first index in
// (good, bad] whose build is bad, asking `is_bad` about ceil(log2(bad - good))
// indexes, each at most once. The caller knows `good` is good and `bad` is
// bad; a list whose badness comes and goes gets one of its bad indexes whose
// predecessor is good, as git bisect does.
#include <cstddef>
#include <functional>

namespace moesweep {

inline size_t first_bad_index(size_t good, size_t bad, const std::function<bool(size_t)>& is_bad) {
  while (bad - good > 1) {
    const size_t mid = good + (bad - good) / 2;
    (is_bad(mid) ? bad : good) = mid;
  }
  return bad;
}

}  // namespace moesweep
