// The memory fields table (results/memory_fields.hpp): one row per MemoryFacts
// member, with distinct JSONL keys and CSV columns; the record's "memory"
// object written and read back, and a stored run's ill-typed values read as
// "no figure" rather than failing the whole run.
#include <gtest/gtest.h>

#include <set>

#include "results/memory_fields.hpp"

namespace moesweep {
namespace {

TEST(MemoryFields, EveryRowHasItsOwnKeyAndColumn) {
  std::set<std::string> keys, columns;
  for (const MemoryField& f : memory_fields()) {
    EXPECT_TRUE(keys.insert(f.json).second) << f.json;
    EXPECT_TRUE(columns.insert(f.csv).second) << f.csv;
    EXPECT_TRUE(std::string(f.json).ends_with("_bytes")) << f.json;
  }
  EXPECT_EQ(memory_fields().size(), 11u);  // the members of MemoryFacts (record.hpp)
}

TEST(MemoryFields, JsonRoundTripKeepsFiguresAndReasons) {
  MemoryFacts m;
  m.kv = 64ull << 20;
  m.peak_rss = 3ull << 30;
  m.unavailable["model_mapped_bytes"] = "no smaps";
  const nlohmann::json j = memory_to_json(m);
  EXPECT_EQ(j, nlohmann::json::parse(R"({"kv_bytes": 67108864, "peak_rss_bytes": 3221225472,
                                         "unavailable": {"model_mapped_bytes": "no smaps"}})"));
  const MemoryFacts back = memory_from_json(j);
  EXPECT_EQ(back.kv, m.kv);
  EXPECT_EQ(back.peak_rss, m.peak_rss);
  EXPECT_FALSE(back.model_mapped);
  EXPECT_EQ(back.unavailable, m.unavailable);
}

TEST(MemoryFields, IllTypedValuesReadAsNoFigure) {
  const MemoryFacts m = memory_from_json(nlohmann::json::parse(
      R"({"kv_bytes": -5, "compute_bytes": "12", "peak_rss_bytes": 1.5,
          "unavailable": {"kv_bytes": 7}})"));
  EXPECT_FALSE(m.kv);
  EXPECT_FALSE(m.compute);
  EXPECT_FALSE(m.peak_rss);
  EXPECT_TRUE(m.unavailable.empty());
  EXPECT_FALSE(memory_from_json(nlohmann::json::array()).kv);  // not an object at all
}

TEST(MemoryFields, CellsAreMibWithTwoDecimalsBelowTen) {
  EXPECT_EQ(memory_mib_cell(std::nullopt), "n/a");
  EXPECT_EQ(memory_mib_cell(3ull << 19), "1.50");
  EXPECT_EQ(memory_mib_cell(123ull << 20), "123.0");
}

}  // namespace
}  // namespace moesweep
