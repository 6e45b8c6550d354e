// parse_cpu_mask (engine/engine_util.hpp): llama.cpp's -C spellings, a hex
// mask or a CPU list, into one flag per CPU; anything else is refused (false),
// never a mask that pins the engine somewhere unexpected.
#include <gtest/gtest.h>

#include "engine/engine_util.hpp"

namespace moesweep {
namespace {

std::vector<bool> mask_of(const std::string& text) {
  std::vector<bool> mask;
  EXPECT_TRUE(parse_cpu_mask(text, mask)) << text;
  return mask;
}

TEST(CpuMask, HexMasksReadFromTheLowestNibble) {
  EXPECT_EQ(mask_of("0x5"), (std::vector<bool>{true, false, true, false}));
  const std::vector<bool> m = mask_of("0XF0");
  ASSERT_EQ(m.size(), 8u);
  for (size_t cpu = 0; cpu < m.size(); ++cpu) EXPECT_EQ(m[cpu], cpu >= 4) << cpu;
}

TEST(CpuMask, ListsAndRangesSetTheirCpus) {
  const std::vector<bool> m = mask_of("0-2,8");
  ASSERT_EQ(m.size(), 9u);
  for (size_t cpu = 0; cpu < m.size(); ++cpu) EXPECT_EQ(m[cpu], cpu <= 2 || cpu == 8) << cpu;
}

TEST(CpuMask, SyntaxErrorsAndImpossibleCpusAreRefused) {
  std::vector<bool> mask = {true};
  for (const char* bad : {"", "0x", "0xg1", "two", "4096", "-1", "0-3,x"}) {
    EXPECT_FALSE(parse_cpu_mask(bad, mask)) << bad;
  }
}

}  // namespace
}  // namespace moesweep
