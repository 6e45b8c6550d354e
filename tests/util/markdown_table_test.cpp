// MarkdownTable (util/markdown_table.hpp), under every table moesweep prints:
// columns as wide as their widest cell (at least 3), right-aligned, UTF-8
// counted in characters, short rows padded with empty cells.
#include <gtest/gtest.h>

#include "util/markdown_table.hpp"

namespace moesweep {
namespace {

TEST(MarkdownTable, ColumnsAreRightAlignedToTheirWidestCell) {
  MarkdownTable t({"threads", "S_TG t/s"});
  t.add_row({"16", "12.94"});
  t.add_row({"4", "9.10 ± 0.25"});  // "±" is two bytes, one column
  EXPECT_EQ(t.rows(), 2u);
  EXPECT_EQ(t.render(),
            "| threads |    S_TG t/s |\n"
            "|--------:|------------:|\n"
            "|      16 |       12.94 |\n"
            "|       4 | 9.10 ± 0.25 |\n");
}

TEST(MarkdownTable, NarrowColumnsAreThreeWideAndShortRowsArePadded) {
  MarkdownTable t({"a", "b"});
  t.add_row({"1"});
  EXPECT_EQ(t.render(),
            "|   a |   b |\n"
            "|----:|----:|\n"
            "|   1 |     |\n");
}

TEST(MarkdownTable, AHeaderWithoutRowsIsStillATable) {
  EXPECT_EQ(MarkdownTable({"x"}).render(), "|   x |\n|----:|\n");
}

}  // namespace
}  // namespace moesweep
