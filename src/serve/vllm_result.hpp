#pragma once
// One open-loop rate as vLLM `bench serve` writes it with --save-result
// (vllm/benchmarks/serve.py), so dashboards built for vLLM's files read
// moesweep's: the same keys, units and definitions. Times in the summary
// fields are milliseconds (mean_ttft_ms, p99_tpot_ms, ...); the per-request
// lists (ttfts, itls, latencies, start_times) are seconds; duration is the
// rate's wall time, from its first arrival's wait to its last answer; the
// percentiles are numpy's (linear between ranks), std the population's, as
// vLLM computes them; every metric of --percentile-metrics ttft,tpot,itl,e2el
// at --metric-percentiles 50,90,95,99. request_goodput is null without SLOs.
// Left out: generated_texts (serve-bench keeps no text).
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "serve/slo.hpp"
#include "serve/workload_runner.hpp"

namespace moesweep {

struct VllmRunInfo {
  std::string backend;  // vLLM's name for the endpoint: llama.cpp, openai, openai-chat
  std::string label, model_id, date;  // date: "%Y%m%d-%H%M%S"
  double rate = 0;
  double burstiness = 1;
  int max_concurrency = 0;  // 0: null
  double duration_s = 0;
};

nlohmann::json vllm_result(const std::vector<const RequestRecord*>& requests,
                           const VllmRunInfo& info, const std::vector<Slo>& slos);
// "<workload>-<rate>qps[-concurrency<C>]-<config>-<round>.json", one path component.
std::string vllm_file_name(const std::string& workload, double rate, int max_concurrency,
                           const std::string& config, int round);

}  // namespace moesweep
