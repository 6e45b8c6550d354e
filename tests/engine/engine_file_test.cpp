// engine.json's typed reader (engine/engine_file.hpp engine_from_json,
// which fuzz_engine_file runs on any bytes): the real files in the fuzz
// corpus read and write back unchanged; every checked field, wrong, is a
// UserError naming the file and the field.
#include <gtest/gtest.h>

#include <filesystem>

#include "engine/engine_file.hpp"
#include "support/test_support.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;

nlohmann::json parsed(const std::string& text) {
  return parse_json_text(text, "engine.json");
}

TEST(EngineFile, TheRegisteredFilesReadAndWriteBackUnchanged) {
  int n = 0;
  for (const char* name : {"aa.json", "planted.json", "v050.json", "ik.json"}) {
    const fs::path file = fs::path(test::source_dir()) / "fuzz/corpus/engine_file" / name;
    SCOPED_TRACE(file.string());
    const RegisteredEngine e = read_engine_file(file);
    EXPECT_EQ(to_json(e), read_json_file(file, "engine file"));
    EXPECT_EQ(to_json(engine_from_json(to_json(e), "rewritten")), to_json(e));
    ++n;
  }
  EXPECT_EQ(n, 4);
}

TEST(EngineFile, EachWrongFieldIsAUserErrorNamingTheFileAndField) {
  const std::pair<const char*, const char*> cases[] = {
      {R"([1])", "engine.json"},
      {R"({"schema": 2, "name": "a", "worker": "/w"})", "schema"},
      {R"({"schema": "1", "name": "a", "worker": "/w"})", "schema"},
      {R"({"schema": 1, "name": 5, "worker": "/w"})", "name"},
      {R"({"schema": 1, "name": "../x", "worker": "/w"})", "not an engine name"},
      {R"({"schema": 1, "name": "a", "worker": "bin/w"})", "worker"},
      {R"({"schema": 1, "name": "a", "worker": "/w", "kind": "vllm"})", "kind"},
      {R"({"schema": 1, "name": "a", "worker": "/w", "build_flags": "-DX"})", "build_flags"},
  };
  for (const auto& [text, field] : cases) {
    SCOPED_TRACE(text);
    // A copy for the lambda: clang 14 cannot capture a structured binding (C++20 allows it).
    const std::string json = text;
    const std::string err = test::refused([&] { engine_from_json(parsed(json), "engine.json"); });
    EXPECT_NE(err.find("engine.json"), std::string::npos) << err;
    EXPECT_NE(err.find(field), std::string::npos) << err;
  }
}

}  // namespace
}  // namespace moesweep
