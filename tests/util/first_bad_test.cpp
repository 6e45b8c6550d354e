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
      const size_t found = first_bad_index(0, n - 1, [&](size_t i) {
        EXPECT_TRUE(asked.insert(i).second) << "index " << i << " asked twice";
        EXPECT_TRUE(i > 0 && i < n - 1) << i;
        return i >= step;
      });
      EXPECT_EQ(found, step) << "n " << n;
      EXPECT_LE(asked.size(), static_cast<size_t>(std::ceil(std::log2(n - 1))));
    }
  }
}

TEST(FirstBad, NeighboursNeedNoQuestion) {
  EXPECT_EQ(first_bad_index(4, 5, [](size_t) -> bool { throw 1; }), 5u);
}

}  // namespace
}  // namespace moesweep
