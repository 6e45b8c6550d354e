// --format vllm: an open-loop rate in vLLM bench serve's result JSON, checked
// against an example of that format (tests/data/serve/README.md): the same
// keys with the same JSON types, no others; and the figures in vLLM's units
// and definitions (ms in the summary, seconds in the lists, numpy's
// percentiles, TPOT without the first token).
#include <gtest/gtest.h>

#include <cmath>

#include "serve/arrival_schedule.hpp"
#include "serve/vllm_result.hpp"
#include "support/test_support.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

RequestRecord request(double start_s, double ttft_ms, std::vector<double> itl_ms, bool ok = true) {
  RequestRecord rec;
  CompletionResult& r = rec.r;
  r.ok = ok;
  r.error = ok ? "" : "HTTP 500";
  r.prompt_tokens = 100;
  r.start_s = start_s;
  r.ttft_ms = ttft_ms;
  r.itl_ms = std::move(itl_ms);
  r.generated = ok ? static_cast<int>(r.itl_ms.size()) + 1 : 0;
  r.e2e_ms = ttft_ms;
  for (double g : r.itl_ms) r.e2e_ms += g;
  return rec;
}

struct Fixture {
  std::vector<RequestRecord> recs = {request(0.0, 100, {20, 20, 20}),  // TPOT 20
                                     request(0.1, 300, {40, 40, 40}),  // TPOT 40
                                     request(0.5, 200, {30}),          // TPOT 30
                                     request(1.5, 0, {}, false)};
  std::vector<const RequestRecord*> ptrs() const {
    std::vector<const RequestRecord*> p;
    for (const auto& r : recs) p.push_back(&r);
    return p;
  }
  VllmRunInfo info() const {
    VllmRunInfo i;
    i.backend = "llama.cpp";
    i.label = "moesweep open-loop t=1";
    i.model_id = "twin.gguf";
    i.date = "20260101-120000";
    i.rate = 2;
    i.duration_s = 2.0;
    return i;
  }
};

const char* type_of(const nlohmann::json& v) {
  return v.is_number() ? "number" : v.is_string() ? "string" : v.is_array() ? "array" : "other";
}

TEST(VllmResult, HasTheExampleFilesKeysWithTheirTypesAndNoOthers) {
  const auto example = read_json_file(
      std::string(MOESWEEP_TEST_DATA) + "/serve/vllm_bench_serve_result.json", "vLLM example");
  const Fixture f;
  const auto ours = vllm_result(f.ptrs(), f.info(), parse_slos("ttft_p99=250ms"));
  for (const auto& [key, value] : example.items()) {
    ASSERT_TRUE(ours.contains(key)) << key;
    if (!value.is_null()) {  // the example's nulls are values left unset (label, goodput)
      EXPECT_STREQ(type_of(ours[key]), type_of(value)) << key;
    }
  }
  for (const auto& [key, value] : ours.items()) EXPECT_TRUE(example.contains(key)) << key;
}

TEST(VllmResult, FiguresAreInVllmsUnitsAndDefinitions) {
  const Fixture f;
  const auto j = vllm_result(f.ptrs(), f.info(), {});
  EXPECT_EQ(j["completed"], 3);
  EXPECT_EQ(j["failed"], 1);
  EXPECT_EQ(j["num_prompts"], 4);
  EXPECT_EQ(j["total_input_tokens"], 300);  // the three that ended
  EXPECT_EQ(j["total_output_tokens"], 4 + 4 + 2);
  EXPECT_DOUBLE_EQ(j["request_throughput"].get<double>(), 3 / 2.0);  // over the duration
  EXPECT_DOUBLE_EQ(j["output_throughput"].get<double>(), 10 / 2.0);
  EXPECT_TRUE(j["request_goodput"].is_null());  // no SLOs
  EXPECT_TRUE(j["max_concurrency"].is_null());
  EXPECT_EQ(j["request_rate"], 2.0);
  // TTFT 100 200 300 ms: numpy's median 200, p90 280 (linear), population sd 81.65.
  EXPECT_DOUBLE_EQ(j["mean_ttft_ms"].get<double>(), 200);
  EXPECT_DOUBLE_EQ(j["median_ttft_ms"].get<double>(), 200);
  EXPECT_DOUBLE_EQ(j["p90_ttft_ms"].get<double>(), 280);
  EXPECT_NEAR(j["std_ttft_ms"].get<double>(), std::sqrt(20000.0 / 3), 1e-9);
  // TPOT (E2E - TTFT) / (tokens - 1): 20, 40, 30.
  EXPECT_DOUBLE_EQ(j["mean_tpot_ms"].get<double>(), 30);
  EXPECT_DOUBLE_EQ(j["p99_tpot_ms"].get<double>(), 39.8);
  EXPECT_DOUBLE_EQ(j["median_itl_ms"].get<double>(), 30);  // 20 20 20 30 40 40 40
  EXPECT_DOUBLE_EQ(j["mean_e2el_ms"].get<double>(), (160 + 420 + 230) / 3.0);
  // The lists: seconds, one entry per request sent, the failed one with 0 and its error.
  EXPECT_DOUBLE_EQ(j["ttfts"][1].get<double>(), 0.3);
  EXPECT_DOUBLE_EQ(j["itls"][0][0].get<double>(), 0.02);
  EXPECT_DOUBLE_EQ(j["latencies"][2].get<double>(), 0.23);
  EXPECT_EQ(j["output_lens"][3], 0);
  EXPECT_EQ(j["errors"][3], "HTTP 500");
  EXPECT_EQ(j["max_concurrent_requests"], 2);  // [0, 0.16) [0.1, 0.52) [0.5, 0.73)
  const auto slo = vllm_result(f.ptrs(), f.info(), parse_slos("ttft_p99=250ms"));
  EXPECT_DOUBLE_EQ(slo["request_goodput"].get<double>(), 2 / 2.0);  // 100 and 200 ms
}

TEST(VllmResult, FileNamesAreOnePathComponent) {
  EXPECT_EQ(vllm_file_name("open-loop", 0.5, 0, "t=1 np=2", 3), "open-loop-0.5qps-t=1_np=2-3.json");
  EXPECT_EQ(vllm_file_name("w", kInfiniteRate, 4, "default", 1),
            "w-infqps-concurrency4-default-1.json");
}

}  // namespace
}  // namespace moesweep
