// `moesweep inspect` on real twins made by the engine (`moesweep synth`),
// against an independent count: the sum of ggml_nbytes over the tensors ggml
// itself builds from the file, and the size of the file on disk.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <memory>

#include "gguf.h"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

struct IndependentCount {
  uint64_t bytes = 0;
  uint64_t routed_expert_bytes = 0;
  int64_t tensors = 0;
};

IndependentCount count_with_ggml(const std::filesystem::path& path) {
  ggml_context* meta = nullptr;
  gguf_init_params params{/*no_alloc=*/true, &meta};
  std::unique_ptr<gguf_context, decltype(&gguf_free)> g(gguf_init_from_file(path.c_str(), params),
                                                        &gguf_free);
  EXPECT_TRUE(g && meta) << path;
  IndependentCount c;
  for (ggml_tensor* t = ggml_get_first_tensor(meta); t; t = ggml_get_next_tensor(meta, t)) {
    c.bytes += ggml_nbytes(t);
    ++c.tensors;
    if (std::string(t->name).find("_exps") != std::string::npos)
      c.routed_expert_bytes += ggml_nbytes(t);
  }
  ggml_free(meta);
  return c;
}

class TwinInspect : public ::testing::TestWithParam<std::string> {};

TEST_P(TwinInspect, ByteCountsMatchAnIndependentCount) {
  const std::filesystem::path twin = test::tiny_twin(GetParam());
  const test::CommandResult r =
      test::run_cli("inspect --json --depth 4096 --cache-type q8_0 '" + twin.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const IndependentCount c = count_with_ggml(twin);

  EXPECT_EQ(j["tensors"].get<int64_t>(), c.tensors);
  EXPECT_EQ(j["tensor_bytes"].get<uint64_t>(), c.bytes);
  EXPECT_EQ(j["groups"]["routed_experts"]["bytes"].get<uint64_t>(), c.routed_expert_bytes);
  EXPECT_LE(c.bytes, std::filesystem::file_size(twin));
  EXPECT_EQ(j["arch"], "deepseek2");
  EXPECT_TRUE(j["mla"].get<bool>());

  uint64_t grouped = 0;
  for (const auto& [name, g] : j["groups"].items()) grouped += g["bytes"].get<uint64_t>();
  EXPECT_EQ(grouped, c.bytes);
  const auto& a = j["active_per_token"];
  const uint64_t routed_active =
      c.routed_expert_bytes * j["experts_used"].get<uint64_t>() / j["experts"].get<uint64_t>();
  EXPECT_NEAR(static_cast<double>(a["routed_active_bytes"].get<uint64_t>()),
              static_cast<double>(routed_active), 8.0);  // per-tensor rounding
  EXPECT_GT(a["kv_bytes"].get<uint64_t>(), 0u);
  EXPECT_LT(a["total_bytes"].get<uint64_t>(), c.bytes + a["kv_bytes"].get<uint64_t>());
}

INSTANTIATE_TEST_SUITE_P(Quants, TwinInspect, ::testing::Values("Q4_K_S", "Q8_0"));

TEST(TwinInspectCli, DamagedFileGivesTheThreePartError) {
  const auto path = test::scratch_dir() / "broken.gguf";
  { std::ofstream(path) << "GGUF-but-nothing-else"; }
  const test::CommandResult r = test::run_cli("inspect '" + path.string() + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("broken.gguf': the GGUF header is truncated or corrupt"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("fix: download the file again"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace moesweep
