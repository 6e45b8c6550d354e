#pragma once
// A finished run's records, read back, and the check the boundary tests make
// of a run whose every point must have failed for one reason.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/test_support.hpp"

namespace moesweep::test {

// A JSON file, parsed.
inline nlohmann::json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// A run directory's meta.json, parsed.
inline nlohmann::json read_meta(const std::filesystem::path& run) {
  return read_json(run / "meta.json");
}

// Every record of a run directory, parsed.
inline std::vector<nlohmann::json> records_of(const std::filesystem::path& run) {
  std::vector<nlohmann::json> out;
  for (const std::string& line : read_lines(run / "records.jsonl"))
    out.push_back(nlohmann::json::parse(line));
  return out;
}

// There are records, and each failed with `why` in its error.
inline void expect_all_failed_with(const std::vector<nlohmann::json>& records,
                                   const std::string& why) {
  ASSERT_FALSE(records.empty());
  for (const nlohmann::json& rec : records) {
    EXPECT_FALSE(rec.at("ok").get<bool>()) << rec;
    EXPECT_NE(rec.value("error", std::string()).find(why), std::string::npos) << rec;
  }
}

}  // namespace moesweep::test
