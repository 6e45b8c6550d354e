// JSON readers and nesting depth: nlohmann's parser is iterative, but copying
// or dumping a 100k-level value recurses and overflows the stack, so every
// reader of ours refuses (or discards) such text before it becomes a value.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/test_support.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

std::string nested(int levels) {
  return std::string(levels, '[') + std::string(levels, ']');
}

TEST(JsonDepth, CountsArraysAndObjectsButNotBracketsInStrings) {
  EXPECT_EQ(json_nesting_depth("1"), 0);
  EXPECT_EQ(json_nesting_depth(R"({"a": [1, {"b": []}]})"), 4);
  EXPECT_EQ(json_nesting_depth(R"(["[[[[", "\"[[[", "\\"])"), 1);
}

TEST(JsonDepth, ReadJsonFileRefusesA100kLevelFileWithTheThreeParts) {
  const std::filesystem::path file = test::scratch_dir() / "deep.json";
  { std::ofstream(file) << "{\"threads\": " << nested(100000) << "}"; }
  try {
    read_json_file(file, "sweep profile");
    ADD_FAILURE() << "accepted";
  } catch (const UserError& e) {
    EXPECT_NE(e.problem().find("deep.json' nests arrays/objects 100001 levels deep"),
              std::string::npos)
        << e.problem();
    EXPECT_NE(e.expected().find("at most 64 levels"), std::string::npos) << e.expected();
    EXPECT_FALSE(e.fix().empty());
    EXPECT_EQ(e.exit_code(), exit_code::kBadInput);
  }
}

TEST(JsonDepth, TheLimitItselfIsAccepted) {
  EXPECT_NO_THROW(parse_json_text(nested(kMaxJsonDepth), "test"));
  EXPECT_THROW(parse_json_text(nested(kMaxJsonDepth + 1), "test"), UserError);
}

TEST(JsonDepth, ExceptionFreeParseDiscardsDeepAndBrokenText) {
  EXPECT_TRUE(parse_json_or_discarded(nested(100000)).is_discarded());
  EXPECT_TRUE(parse_json_or_discarded("plain text").is_discarded());
  EXPECT_EQ(parse_json_or_discarded(R"({"n": 2})").at("n"), 2);
}

TEST(JsonDepth, InvalidJsonStillNamesTheFileAndTheOffset) {
  const std::filesystem::path file = test::scratch_dir() / "broken.json";
  { std::ofstream(file) << "{\"a\": }"; }
  try {
    read_json_file(file, "model profile");
    ADD_FAILURE() << "accepted";
  } catch (const UserError& e) {
    EXPECT_NE(e.problem().find("model profile '"), std::string::npos) << e.problem();
    EXPECT_NE(e.problem().find("is not valid JSON"), std::string::npos) << e.problem();
  }
}

}  // namespace
}  // namespace moesweep
