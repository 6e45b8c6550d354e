// The readers every typed reader of ours stands on (issue 20): JSON lines
// with a torn last line (detected, left out, cut away before an append),
// bounded reads (no FIFO, no /dev/zero, no 16 MiB line), integers never
// narrowed, and names from files that must stay one path component.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/test_support.hpp"
#include "util/error.hpp"
#include "util/json_fields.hpp"
#include "util/json_file.hpp"
#include "util/jsonl_file.hpp"
#include "util/paths.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;

fs::path file_with(const std::string& name, const std::string& text) {
  const fs::path p = test::scratch_dir() / name;
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

std::string file_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(JsonlFile, ATornLastLineIsLeftOutAndReported) {
  const fs::path p = file_with("r.jsonl", "{\"a\": 1}\n{\"a\": 2}\n{\"n_kv_max\":68,\"n_bat");
  const JsonlFile f = read_jsonl_file(p, "records file");
  ASSERT_EQ(f.lines.size(), 2u);
  EXPECT_EQ(f.lines[1].value["a"], 2);
  ASSERT_TRUE(f.torn.has_value());
  EXPECT_EQ(f.torn->number, 3u);
  EXPECT_EQ(f.torn->offset, 18u);
  EXPECT_EQ(f.torn->bytes, "{\"n_kv_max\":68,\"n_bat");
  EXPECT_NE(torn_line_note(p, *f.torn).find("r.jsonl:3 ends in a torn line (21 bytes"),
            std::string::npos);
}

TEST(JsonlFile, ACompleteLastLineWithoutNewlineIsALineAndABrokenMiddleLineIsNoTornOne) {
  const JsonlFile f = read_jsonl_file(file_with("r.jsonl", "{\"a\": 1}\n{\"a\": 2}"), "x");
  EXPECT_EQ(f.lines.size(), 2u);
  EXPECT_FALSE(f.torn);
  // Not at the end, or ended by a newline: a broken line, for the reader to refuse.
  const JsonlFile g = read_jsonl_file(file_with("s.jsonl", "{\"a\": \n{\"a\": 2}\n"), "x");
  ASSERT_EQ(g.lines.size(), 2u);
  EXPECT_TRUE(g.lines[0].value.is_discarded());
  EXPECT_FALSE(g.torn);
}

TEST(JsonlFile, RepairCutsTheTornLineAwayAndKeepsItsBytesBeside) {
  const fs::path p = file_with("records.jsonl", "{\"a\": 1}\n{\"a\": 2, \"b\": [1, 2");
  const auto torn = repair_jsonl_tail(p);
  ASSERT_TRUE(torn);
  EXPECT_EQ(file_text(p), "{\"a\": 1}\n");
  const std::string side = file_text(p.string() + ".torn");
  EXPECT_NE(side.find("# line 2 at byte 9 of records.jsonl\n{\"a\": 2, \"b\": [1, 2\n"),
            std::string::npos)
      << side;
  // An append now starts a line of its own; a second repair finds nothing.
  std::ofstream(p, std::ios::app) << "{\"a\": 3}\n";
  EXPECT_FALSE(repair_jsonl_tail(p));
  EXPECT_EQ(read_jsonl_file(p, "x").lines.size(), 2u);
}

TEST(JsonlFile, RepairEndsACompleteLastLineInsteadOfGluingOntoIt) {
  const fs::path p = file_with("records.jsonl", "{\"a\": 1}\n{\"a\": 2}");
  EXPECT_FALSE(repair_jsonl_tail(p));
  EXPECT_EQ(file_text(p), "{\"a\": 1}\n{\"a\": 2}\n");
  const fs::path csv = file_with("records.csv", "h1,h2\n1,2\n3,");
  ASSERT_TRUE(repair_text_tail(csv));
  EXPECT_EQ(file_text(csv), "h1,h2\n1,2\n");
}

TEST(BoundedReads, SpecialFilesHugeLinesAndHugeFilesAreRefusedUnread) {
  EXPECT_NE(test::refused([] {
              read_json_file("/dev/zero", "run metadata");
            }).find("'/dev/zero' is not a regular file"),
            std::string::npos);
  EXPECT_NE(test::refused([] {
              read_jsonl_file("/dev/zero", "records file");
            }).find("is not a regular file"),
            std::string::npos);
  const fs::path long_line = file_with("long.jsonl", std::string((16u << 20) + 10, 'x'));
  EXPECT_NE(test::refused([&] {
              read_jsonl_file(long_line, "records file");
            }).find("has a line 1 longer than 16 MiB"),
            std::string::npos);
  EXPECT_NE(test::refused([&] {
              read_text_file(long_line, "meta.json", 1u << 20);
            }).find("is larger than 1 MiB"),
            std::string::npos);
}

TEST(IntegerFields, ValuesOutsideTheTypeAreRefusedNeverNarrowed) {
  const nlohmann::json j = {{"count", 4294967297ull}, {"index", -1}, {"big", 1e12}};
  EXPECT_NE(test::refused([&] {
              optional_field<int>(j, "count", 1, "plan.json");
            }).find("plan.json: field 'count' is 4294967297"),
            std::string::npos);
  EXPECT_EQ(optional_field<int64_t>(j, "count", 1, "plan.json"), 4294967297);
  EXPECT_THROW(optional_field<uint64_t>(j, "index", 1, "x"), UserError);
  EXPECT_THROW(optional_field<int>(j, "big", 1, "x"), UserError);  // 1e12 is no integer
  const JsonFields f(j, "shard-0.json", "shard");
  EXPECT_NE(test::refused([&] {
              f.integer("count", 1, 100000, 1);
            }).find("shard-0.json: field 'shard.count' is 4294967297"),
            std::string::npos);
  EXPECT_EQ(f.integer("index", -1, 5, 0), -1);
  EXPECT_THROW(f.integer("index", 0, 5, 0), UserError);
  EXPECT_THROW(f.text("count"), UserError);
}

// Found by fuzz_run_meta (fuzz/regressions/run_meta/number-overflow): the
// parser's out_of_range for a number past a double escaped as "internal error".
TEST(JsonText, ANumberPastADoubleIsBadJsonNotAnInternalError) {
  EXPECT_NE(test::refused([] {
              parse_json_text(R"({"run_id": "r", "x": 7.79E3309253523974})", "meta.json");
            }).find("meta.json is not valid JSON"),
            std::string::npos);
}

TEST(PathComponents, NamesFromFilesStayInTheirFolder) {
  for (const char* ok : {"20261129-204616-ci", "merged", "amd-26-2-2cpu-l3_na-d8a3c4a8", "a b%c"})
    EXPECT_TRUE(is_path_component(ok)) << ok;
  for (const char* bad : {"", ".", "..", "../../x", "/abs", "a/b", "nl\nx", "tab\t"})
    EXPECT_FALSE(is_path_component(bad)) << bad;
  EXPECT_FALSE(is_path_component(std::string(201, 'a')));
  EXPECT_NE(test::refused([] {
              check_path_component("../../escape", "run id", "RUN/meta.json");
            }).find("RUN/meta.json: the run id '../../escape' cannot name a folder"),
            std::string::npos);
  EXPECT_NE(test::refused([] { check_path_component("a\nb", "run id", "m"); }).find("'a\\x0ab'"),
            std::string::npos);
}

}  // namespace
}  // namespace moesweep
