// moesweep's sweep defaults are the pinned engine's llama-bench defaults for
// every setting llama-bench writes into a row that compare-llama-bench.py
// joins on, read from the engine's llama-bench.cpp itself (issue 9): the same
// user flags must give the same key columns.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "support/test_support.hpp"
#include "sweep/plan.hpp"
#include "sweep/sweep_spec.hpp"

namespace moesweep {
namespace {

// "/* name */ { value }" entries of llama-bench.cpp's cmd_params_defaults.
std::map<std::string, std::string> llama_bench_defaults() {
  const std::string src = test::engine_source("tools/llama-bench/llama-bench.cpp");
  const size_t at = src.find("static const cmd_params cmd_params_defaults = {");
  if (at == std::string::npos) return {};
  const std::string block = src.substr(at, src.find("};", at) - at);
  std::map<std::string, std::string> out;
  const std::regex entry(R"(/\*\s*([a-z_]+)\s*\*/\s*\{\s*([^{}]*?)\s*\})");
  for (auto it = std::sregex_iterator(block.begin(), block.end(), entry);
       it != std::sregex_iterator(); ++it)
    out[(*it)[1]] = (*it)[2];
  return out;
}

TEST(LlamaBenchDefaults, SweepDefaultsAreThePinnedLlamaBenchOnes) {
  const auto lb = llama_bench_defaults();
  if (lb.empty()) GTEST_SKIP() << "engine source not at third_party/llama.cpp";
  ASSERT_EQ(lb.count("flash_attn"), 1u);
  ASSERT_EQ(lb.count("load_mode"), 1u);
  const SweepSpec spec = spec_from_settings({}, "defaults");
  const Plan plan = make_plan(spec, 64);
  const PointParams& p = plan.points.at(0).params;
  EXPECT_EQ(lb.at("n_gpu_layers"), std::to_string(p.n_gpu_layers));
  EXPECT_EQ(lb.at("n_batch"), std::to_string(p.n_batch));
  EXPECT_EQ(lb.at("n_ubatch"), std::to_string(p.n_ubatch));
  EXPECT_EQ(lb.at("poll"), std::to_string(p.poll));
  EXPECT_EQ(lb.at("cpu_strict"), p.cpu_strict ? "true" : "false");
  EXPECT_EQ(lb.at("cpu_mask"), "\"0x0\"");  // the export writes "0x0" for no mask
  EXPECT_TRUE(p.cpu_mask.empty());
  EXPECT_EQ(lb.at("type_k"), "GGML_TYPE_F16");
  EXPECT_EQ(p.type_k, "f16");
  EXPECT_EQ(lb.at("type_v"), "GGML_TYPE_F16");
  EXPECT_EQ(p.type_v, "f16");
  // enum spellings: LLAMA_FLASH_ATTN_TYPE_AUTO = -1, LLAMA_LOAD_MODE_AUTO -> "auto"
  EXPECT_EQ(lb.at("flash_attn"), "LLAMA_FLASH_ATTN_TYPE_AUTO");
  EXPECT_EQ(p.flash_attn, -1);
  EXPECT_EQ(lb.at("load_mode"), "LLAMA_LOAD_MODE_AUTO");
  EXPECT_EQ(p.load_mode, "auto");
  EXPECT_EQ(lb.at("n_cpu_moe"), "0");
  EXPECT_TRUE(p.tensor_overrides.empty());
}

}  // namespace
}  // namespace moesweep
