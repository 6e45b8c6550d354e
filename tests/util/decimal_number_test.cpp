// Numbers on the command line are decimal (issue 44, item 15): the reader
// every CLI number goes through refuses hex, octal-looking, infinite, NaN and
// padded text, which strtod and strtoll(base 0) would have read.
#include <gtest/gtest.h>

#include "util/decimal_number.hpp"

namespace moesweep {
namespace {

TEST(DecimalNumber, DecimalTextIsReadAndNothingElse) {
  for (const auto& [text, value] : {std::pair{"16", 16.0},
                                    {"-2.5", -2.5},
                                    {"+3", 3.0},
                                    {".5", 0.5},
                                    {"5.", 5.0},
                                    {"1e3", 1000.0},
                                    {"2.5E-1", 0.25},
                                    {"010", 10.0}})
    EXPECT_EQ(parse_decimal(text), value) << text;
  for (const char* text : {"0x10", "0X1p4", "inf", "-inf", "nan", "NAN", " 5", "5 ", "", "+", "-",
                           ".", "e3", "1e", "1e+", "1.2.3", "5%", "1e999", "１"})
    EXPECT_FALSE(parse_decimal(text)) << text;
}

TEST(DecimalNumber, IntegersAreWholeAndWithin64Bits) {
  EXPECT_EQ(parse_decimal_integer("010"), 10);
  EXPECT_EQ(parse_decimal_integer("-9223372036854775808"), INT64_MIN);
  for (const char* text : {"0x10", "1.0", "1e3", "9223372036854775808", "0b11", " 1"})
    EXPECT_FALSE(parse_decimal_integer(text)) << text;
}

TEST(DecimalNumber, LeadingZerosAreDroppedSoNoReaderTakesThemAsOctal) {
  EXPECT_EQ(decimal_text("010"), "10");
  EXPECT_EQ(decimal_text("-007.5"), "-7.5");
  EXPECT_EQ(decimal_text("0"), "0");
  EXPECT_EQ(decimal_text("0.25"), "0.25");
  EXPECT_EQ(decimal_text("+00"), "+0");
  EXPECT_FALSE(decimal_text("0x10"));
  EXPECT_EQ(decimal_prefix_length("32MiB"), 2u);
  EXPECT_EQ(decimal_prefix_length("1.5e3K"), 5u);
  EXPECT_EQ(decimal_prefix_length("0x10"), 1u);  // "0", then "x10" is no unit anyone takes
  EXPECT_EQ(decimal_prefix_length("M"), 0u);
}

}  // namespace
}  // namespace moesweep
