// Axis values as llama-bench users write them: lists, ranges, +step and *factor
// ranges, and errors that name the flag and say how to write it instead.
#include <gtest/gtest.h>

#include "util/error.hpp"
#include "util/parse_list.hpp"

namespace moesweep {
namespace {

using Ints = std::vector<int64_t>;

TEST(ParseIntList, ListKeepsTheOrderGiven) {
  EXPECT_EQ(parse_int_list("16,14,13,12", "-t"), (Ints{16, 14, 13, 12}));
  EXPECT_EQ(parse_int_list("8", "-t"), (Ints{8}));
}

TEST(ParseIntList, SpacesAndEmptyItemsAreIgnored) {
  EXPECT_EQ(parse_int_list(" 3 , 4 ,,5", "-t"), (Ints{3, 4, 5}));
}

TEST(ParseIntList, RangeIsInclusiveWithStepOne) {
  EXPECT_EQ(parse_int_list("12-16", "-t"), (Ints{12, 13, 14, 15, 16}));
  EXPECT_EQ(parse_int_list("7-7", "-t"), (Ints{7}));
}

TEST(ParseIntList, PlusStepRangeStopsAtOrBeforeTheEnd) {
  EXPECT_EQ(parse_int_list("0-8192+2048", "--depths"), (Ints{0, 2048, 4096, 6144, 8192}));
  EXPECT_EQ(parse_int_list("0-10+4", "--depths"), (Ints{0, 4, 8}));
}

TEST(ParseIntList, TimesFactorRangeMultiplies) {
  EXPECT_EQ(parse_int_list("512-4096*2", "-ub"), (Ints{512, 1024, 2048, 4096}));
  EXPECT_EQ(parse_int_list("1-100*10", "-ub"), (Ints{1, 10, 100}));
}

TEST(ParseIntList, ListsAndRangesMix) {
  EXPECT_EQ(parse_int_list("1,4-6,16", "-t"), (Ints{1, 4, 5, 6, 16}));
}

TEST(ParseIntList, LeadingMinusIsANegativeNumberNotARange) {
  EXPECT_EQ(parse_int_list("-1", "--depth-max"), (Ints{-1}));
}

// The error must name the flag and carry the three parts every command prints.
void expect_user_error(const std::string& text, const std::string& in_problem) {
  try {
    parse_int_list(text, "--threads");
    ADD_FAILURE() << "'" << text << "' was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(e.problem().find("--threads"), std::string::npos) << e.problem();
    EXPECT_NE(e.problem().find(in_problem), std::string::npos) << e.problem();
    EXPECT_FALSE(e.expected().empty());
    EXPECT_NE(e.fix().find("--threads"), std::string::npos) << e.fix();
    EXPECT_EQ(e.exit_code(), exit_code::kBadInput);
  }
}

TEST(ParseIntList, RejectsWordsAndTrailingGarbage) {
  expect_user_error("abc", "'abc' is not a number");
  expect_user_error("12x", "'12x' is not a number");
  expect_user_error("4,five", "'five' is not a number");
  expect_user_error("1-4+x", "'x' is not a number");
}

TEST(ParseIntList, RejectsBackwardsAndEndlessRanges) {
  expect_user_error("16-12", "range '16-12'");
  expect_user_error("1-8+0", "range '1-8+0'");
  expect_user_error("1-8*1", "range '1-8*1'");
  expect_user_error("0-8*2", "range '0-8*2'");  // 0 * 2 never grows
}

TEST(ParseIntList, RejectsAnEmptyValue) {
  expect_user_error("", "no values");
  expect_user_error(" , ", "no values");
}

TEST(ParseIntList, HugeRangesAreRefusedInsteadOfExpanded) {
  expect_user_error("1-1000000+1", "'1-1000000+1' expands to more than 4096 values");
  expect_user_error("0-9223372036854775807", "expands to more than 4096 values");
  EXPECT_EQ(parse_int_list("1-4096", "-t").size(), kMaxListValues);  // the limit itself
  std::string list = "1";
  for (size_t i = 1; i <= kMaxListValues; ++i) list += ",1";
  expect_user_error(list, "expands to more than 4096 values");
}

TEST(ParseIntList, RangesEndingNearInt64MaxStopInsteadOfOverflowing) {
  EXPECT_EQ(parse_int_list("9223372036854775806-9223372036854775807+5", "-t"),
            (Ints{9223372036854775806}));
  EXPECT_EQ(parse_int_list("4611686018427387904-9223372036854775807*2", "-t"),
            (Ints{4611686018427387904}));
}

TEST(ParseIntList, OutOfRangeNumbersAreShownAsWritten) {
  expect_user_error("18446744073709551615", "18446744073709551615 is out of range");
}

TEST(ParseBoolWord, AcceptsTheUsualSpellings) {
  for (const char* on : {"on", "1", "true", "yes"}) EXPECT_TRUE(parse_bool_word(on, "-fa")) << on;
  for (const char* off : {"off", "0", "false", "no"})
    EXPECT_FALSE(parse_bool_word(off, "-fa")) << off;
  EXPECT_THROW(parse_bool_word("maybe", "-fa"), UserError);
}

TEST(SplitList, SplitsOnTheGivenSeparator) {
  EXPECT_EQ(split_list("a;b; c", ';'), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(split_list("x,y"), (std::vector<std::string>{"x", "y"}));
  EXPECT_TRUE(split_list("").empty());
}

}  // namespace
}  // namespace moesweep
