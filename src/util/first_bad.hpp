#pragma once
// Bisection over an ordered list (releases, commits): the first index in
// (good, bad] whose build is bad, asking `verdict` about about
// ceil(log2(bad - good)) indexes, each at most once. The caller knows `good`
// is good and `bad` is bad; a list whose badness comes and goes gets one of
// its bad indexes whose predecessor is good, as git bisect does.
//
// A build that cannot be measured (`verdict` gives nullopt: a release whose
// worker aborts) is skipped, as `git bisect skip` does: the search asks its
// nearest neighbour instead. When skipped indexes lie right before the
// answer, the first bad one is any of them or the answer: `skipped` lists them.
#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

namespace moesweep {

struct FirstBad {
  size_t index = 0;             // the first bad index measured
  std::vector<size_t> skipped;  // unmeasurable indexes between the last good one and it
};

inline FirstBad first_bad_index(size_t good, size_t bad,
                                const std::function<std::optional<bool>(size_t)>& verdict) {
  std::vector<bool> skip(bad + 1, false);
  const auto open = [&](size_t i) { return i > good && i < bad && !skip[i]; };
  for (;;) {
    const size_t mid = good + (bad - good) / 2;
    std::optional<size_t> pick;  // the open index nearest the middle
    for (size_t d = 0; d <= bad - good && !pick; ++d)
      if (open(mid + d))
        pick = mid + d;
      else if (d <= mid && open(mid - d))
        pick = mid - d;
    if (!pick) break;
    const std::optional<bool> is_bad = verdict(*pick);
    if (!is_bad)
      skip[*pick] = true;
    else
      (*is_bad ? bad : good) = *pick;
  }
  FirstBad out{bad, {}};
  for (size_t i = good + 1; i < bad; ++i)
    if (skip[i]) out.skipped.push_back(i);
  return out;
}

}  // namespace moesweep
