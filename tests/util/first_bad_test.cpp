// first_bad_index (util/first_bad.hpp): bisect's search over releases.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "util/first_bad.hpp"

namespace moesweep {
namespace {

TEST(FirstBad, FindsEveryStepAskingLog2Indexes) {
  for (size_t n : {2u, 3u, 8u, 33u}) {
    for (size_t step = 1; step < n; ++step) {
      std::set<size_t> asked;
      const FirstBad found = first_bad_index(0, n - 1, [&](size_t i) -> std::optional<bool> {
        EXPECT_TRUE(asked.insert(i).second) << "index " << i << " asked twice";
        EXPECT_TRUE(i > 0 && i < n - 1) << i;
        return i >= step;
      });
      EXPECT_EQ(found.index, step) << "n " << n;
      EXPECT_TRUE(found.skipped.empty());
      EXPECT_LE(asked.size(), static_cast<size_t>(std::ceil(std::log2(n - 1))));
    }
  }
}

TEST(FirstBad, NeighboursNeedNoQuestion) {
  EXPECT_EQ(first_bad_index(4, 5, [](size_t) -> std::optional<bool> { throw 1; }).index, 5u);
}

// Releases that cannot be measured (3.9.0 and 3.10.0 abort at decode) are
// skipped, never taken for bad: the answer is exact when a measured good one
// lies right before it, and lists the skipped ones where they hide it.
TEST(FirstBad, SkipsWhatCannotBeMeasured) {
  const std::set<size_t> broken = {3, 4};
  for (size_t step = 1; step < 10; ++step) {
    std::set<size_t> asked;
    const FirstBad found = first_bad_index(0, 9, [&](size_t i) -> std::optional<bool> {
      EXPECT_TRUE(asked.insert(i).second) << "index " << i << " asked twice";
      if (broken.count(i)) return std::nullopt;
      return i >= step;
    });
    if (step == 3 || step == 4 || step == 5) {
      EXPECT_EQ(found.index, 5u) << "step " << step;
      EXPECT_EQ(found.skipped, (std::vector<size_t>{3, 4})) << "step " << step;
    } else {
      EXPECT_EQ(found.index, step);
      EXPECT_TRUE(found.skipped.empty()) << "step " << step;
    }
  }
  // Everything between is broken: the answer is bad, hidden behind all of them.
  const FirstBad all = first_bad_index(0, 3, [](size_t) { return std::optional<bool>(); });
  EXPECT_EQ(all.index, 3u);
  EXPECT_EQ(all.skipped, (std::vector<size_t>{1, 2}));
}

}  // namespace
}  // namespace moesweep
