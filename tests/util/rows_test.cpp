// util/rows.hpp: the one row table of every "one row per member" list.
#include "util/rows.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace moesweep {
namespace {

struct Shape {
  int width = 0;
  std::string name;
};

struct ShapeRow {
  const char* key;
  MemberOf<Shape, int, std::string> member;
  const char* help = "";  // a dialect's own column
};

const Rows<ShapeRow> kRows = {{"width", &Shape::width, "in pixels"}, {"name", &Shape::name}};

TEST(Rows, FindsRowsByKeyAndListsTheKeysInOrder) {
  ASSERT_NE(kRows.find("width"), nullptr);
  EXPECT_STREQ(kRows.find("width")->help, "in pixels");
  EXPECT_EQ(kRows.find("height"), nullptr);
  EXPECT_EQ(kRows.keys(), (std::vector<std::string>{"width", "name"}));
  EXPECT_EQ(kRows.keys({"kind"}), (std::vector<std::string>{"kind", "width", "name"}));
  EXPECT_EQ(kRows.joined(Rows<ShapeRow>{{"depth", &Shape::width}}).size(), 3u);
}

TEST(Rows, AKeySpelledTwiceIsRefused) {
  EXPECT_THROW((Rows<ShapeRow>{{"width", &Shape::width}, {"width", &Shape::name}}),
               std::logic_error);
  EXPECT_THROW(kRows.joined(kRows), std::logic_error);
  // Rows without a key (nullptr) are never found and never clash.
  const Rows<ShapeRow> keyless = {{nullptr, &Shape::width}, {nullptr, &Shape::name}};
  EXPECT_EQ(keyless.find(""), nullptr);
  EXPECT_TRUE(keyless.keys().empty());
}

TEST(Rows, VisitMemberHandsTheRowsMemberToGenericCode) {
  Shape s{3, "box"};
  std::vector<std::string> seen;
  for (const ShapeRow& row : kRows)
    visit_member(s, row.member, [&](auto& v) {
      if constexpr (std::is_same_v<std::remove_reference_t<decltype(v)>, int>)
        seen.push_back(std::to_string(v *= 2));
      else
        seen.push_back(v);
    });
  EXPECT_EQ(seen, (std::vector<std::string>{"6", "box"}));
  EXPECT_EQ(s.width, 6);
  const Shape defaults;
  bool differs = false;
  visit_member(s, defaults, kRows[0].member,
               [&](const auto& v, const auto& d) { differs = v != d; });
  EXPECT_TRUE(differs);
}

}  // namespace
}  // namespace moesweep
