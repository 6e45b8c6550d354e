// llama-bench compatibility: the field list is checked against the pinned
// engine's llama-bench.cpp itself, and the SQL is loaded into a real SQLite.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "results/llama_bench_export.hpp"
#include "sample_sets.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

LoadedRun two_point_run() {
  LoadedRun run;
  run.label = "unit";
  nlohmann::json meta = {
      {"build", {{"engine", {{"commit", "80fb11a"}}}, {"cpu", {{"model_name", "AMD EPYC 9175F"}}}}},
      {"started_at", "2026-11-29T20:16:39Z"}};
  meta["models"] =
      nlohmann::json::array({nlohmann::json{{"path", "/models/r/kimi-k2.5-tiny-Q4_K_S.gguf"},
                                            {"size_bytes", 180188224},
                                            {"n_params", 316939024},
                                            {"description", "deepseek2 ?B Q4_K - Small"}}});
  run.meta = run_meta_from_json(meta, "test meta.json");
  run.records.push_back(test::make_record("r", 0, 2, 0, {100, 110, 105}, {10, 11, 10.5}));
  run.records.push_back(test::make_record("r", 1, 2, 256, {90, 95, 92}, {9, 9.5, 9.2}));
  return run;
}

// test::get_fields() as written in the engine's llama-bench.cpp.
std::vector<std::string> llama_bench_fields() {
  const std::string src = test::engine_source("tools/llama-bench/llama-bench.cpp");
  const size_t at = src.find("static const std::vector<std::string> fields = {");
  if (at == std::string::npos) return {};
  const std::string block = src.substr(at, src.find("};", at) - at);
  std::vector<std::string> fields;
  const std::regex quoted("\"([a-z_0-9]+)\"");
  for (auto it = std::sregex_iterator(block.begin(), block.end(), quoted);
       it != std::sregex_iterator(); ++it) {
    fields.push_back((*it)[1]);
  }
  return fields;
}

TEST(LlamaBenchExport, JsonHasLlamaBenchFieldsInOrder) {
  const auto expected = llama_bench_fields();
  if (expected.empty()) GTEST_SKIP() << "engine source not at third_party/llama.cpp";
  const auto j = llama_bench_json(two_point_run());
  ASSERT_EQ(j.size(), 4u);  // two points x (PP test, TG test)
  std::vector<std::string> keys;
  for (const auto& [k, v] : j[0].items()) keys.push_back(k);
  std::vector<std::string> want = expected;
  want.push_back("samples_ns");
  want.push_back("samples_ts");
  EXPECT_EQ(keys, want);
  EXPECT_EQ(j[0]["n_prompt"], 256);
  EXPECT_EQ(j[0]["n_gen"], 0);
  EXPECT_EQ(j[1]["n_prompt"], 0);
  EXPECT_EQ(j[1]["n_gen"], 16);
  EXPECT_EQ(j[3]["n_depth"], 256);
  EXPECT_EQ(j[0]["build_commit"], "80fb11a");
  LoadedRun full = two_point_run();  // meta.json keeps the full hash; llama-bench the short one
  full.meta->build->engine.commit = "80fb11ac73e66d89eae2c6a91d8a77428fa733ed";
  EXPECT_EQ(llama_bench_json(full)[0]["build_commit"], "80fb11a");
  EXPECT_EQ(j[0]["cpu_info"], "AMD EPYC 9175F");
  EXPECT_EQ(j[0]["model_size"], 180188224);
  EXPECT_EQ(j[0]["model_n_params"], 316939024);
  EXPECT_EQ(j[0]["model_type"], "deepseek2 ?B Q4_K - Small");
  EXPECT_EQ(j[0]["test_time"], "2026-11-29T20:16:39Z");
  EXPECT_EQ(j[0]["cpu_strict"], false);  // BOOL fields are JSON booleans, as llama-bench writes
  EXPECT_NEAR(j[1]["avg_ts"].get<double>(), 10.5, 1e-6);
  EXPECT_NEAR(j[1]["stddev_ts"].get<double>(), 0.5, 1e-6);
  EXPECT_EQ(j[1]["samples_ns"].size(), 3u);
  EXPECT_EQ(j[1]["avg_ns"].get<int64_t>(),
            (j[1]["samples_ns"][0].get<int64_t>() + j[1]["samples_ns"][1].get<int64_t>() +
             j[1]["samples_ns"][2].get<int64_t>()) /
                3);
}

// What llama-bench writes for the same settings (llama-bench.cpp get_values):
// the requested flash-attn and load mode as given (-1, "auto"), -ncmoe in its
// own column, "0x0" for no CPU mask, "CPU" as the backend of a CPU build.
TEST(LlamaBenchExport, KeyColumnsAreWhatLlamaBenchWritesForTheSameSettings) {
  LoadedRun run = two_point_run();
  PointParams& p = run.records[0].params;
  p.flash_attn = -1;
  p.load_mode = "auto";
  p.n_gpu_layers = -1;
  p.tensor_overrides = "exps=CPU;n-cpu-moe=3";
  PointParams& q = run.records[1].params;
  q.flash_attn = 0;
  q.load_mode = "mmap+mlock";
  q.n_gpu_layers = 0;
  q.cpu_mask = "0xff";
  const auto j = llama_bench_json(run);
  ASSERT_EQ(j.size(), 4u);
  EXPECT_EQ(j[0]["flash_attn"], -1);
  EXPECT_EQ(j[0]["load_mode"], "auto");
  EXPECT_EQ(j[0]["n_gpu_layers"], -1);
  EXPECT_EQ(j[0]["backends"], "CPU");
  EXPECT_EQ(j[0]["n_cpu_moe"], 3);
  EXPECT_EQ(j[0]["tensor_buft_overrides"], "exps=CPU");
  EXPECT_EQ(j[0]["cpu_mask"], "0x0");
  EXPECT_EQ(j[0]["lazy_mode"], "auto");
  EXPECT_EQ(j[2]["flash_attn"], 0);
  EXPECT_EQ(j[2]["load_mode"], "mmap+mlock");
  EXPECT_EQ(j[2]["n_gpu_layers"], 0);
  EXPECT_EQ(j[2]["n_cpu_moe"], 0);
  EXPECT_EQ(j[2]["tensor_buft_overrides"], "none");
  EXPECT_EQ(j[2]["cpu_mask"], "0xff");
  // the SQL says the same: flash_attn an INTEGER -1, load_mode the text
  const std::string sql = llama_bench_sql(run);
  EXPECT_NE(sql.find("'-1', 'auto', '0.00', 'exps=CPU', 'auto'"), std::string::npos) << sql;
}

TEST(LlamaBenchExport, SqlLoadsIntoSqlite) {
  const std::string sql = llama_bench_sql(two_point_run());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
  char* err = nullptr;
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << err << "\n" << sql;
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db,
                     "SELECT count(*), sum(n_gen), max(n_depth), typeof(avg_ts) FROM llama_bench",
                     -1, &st, nullptr);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(st, 0), 4);
  EXPECT_EQ(sqlite3_column_int(st, 1), 32);
  EXPECT_EQ(sqlite3_column_int(st, 2), 256);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 3)), "real");
  sqlite3_finalize(st);
  sqlite3_close(db);
  EXPECT_NE(sql.find("CREATE TABLE IF NOT EXISTS llama_bench ("), std::string::npos);
}

}  // namespace
}  // namespace moesweep
