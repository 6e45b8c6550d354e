#pragma once
// The statistics of one open-loop rate, from its requests: in memory as the
// run goes, or the lines of a requests.jsonl read back (the same numbers).
//  - TTFT, TPOT, ITL and E2E at mean, p50, p90, p95 and p99 (nearest rank);
//    TPOT is (E2E - TTFT) / (output tokens - 1) of each request with more
//    than one token (vLLM's definition), ITL every gap between tokens, pooled.
//  - Throughput over the rate's duration: from the first request sent to the
//    last one ended (requests/s of those that ended well, tokens/s).
//  - With SLOs: each SLO's statistic over every request sent (a failed
//    request counts as infinitely late), met when within the bound; goodput,
//    the requests/s and output tokens/s of the requests whose own values are
//    within every bound: their TTFT, TPOT (0 with one token, as vLLM has it),
//    E2E, and the SLO's statistic of their own ITLs.
//  - Requests the server ended early (fewer tokens than asked, with its
//    reason) are failed, and counted by that reason.
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "serve/serve_client.hpp"
#include "serve/slo.hpp"

namespace moesweep {

struct RequestSample {
  bool ok = false;
  std::string stop_reason;  // the server ended it early, for this reason (CompletionResult's)
  double start_s = 0, ttft_ms = 0, e2e_ms = 0;
  int prompt_tokens = 0, generated = 0, cache_n = -1;
  std::vector<double> itl_ms;
  double tpot_ms() const;  // -1 with fewer than two tokens
};
RequestSample sample_of(const CompletionResult& r);
// A requests.jsonl line, checked by check_request_line (serve_run_files.hpp) first.
RequestSample sample_of_line(const nlohmann::json& line);

struct Spread {
  int n = 0;
  double mean = 0, p50 = 0, p90 = 0, p95 = 0, p99 = 0;
  double at(const std::string& stat) const;  // "mean", "p50", ...
  nlohmann::json to_json() const;            // nulls when there are no values
};
Spread spread_of(const std::vector<double>& values);

struct SloCheck {
  Slo slo;
  double value = 0;  // the rate's statistic (inf: a failed request decided it)
  bool met = false;
};

struct RateStats {
  int sent = 0, ok = 0, failed = 0;
  double duration_s = 0;
  long input_tokens = 0, output_tokens = 0, cached_tokens = 0;
  double requests_per_s = 0, input_tokens_per_s = 0, output_tokens_per_s = 0;
  Spread ttft, tpot, itl, e2e;
  std::vector<SloCheck> slos;  // empty without --slo
  int good = 0;
  double goodput_requests_per_s = 0, goodput_tokens_per_s = 0;
  // Failed requests the server ended before their tokens, by the reason it gave.
  std::map<std::string, int> stopped_early;
  bool slos_met() const;
  // The largest value / bound of the SLOs (> 1: one is missed); the capacity
  // search interpolates it.
  double worst_slo_ratio() const;
  nlohmann::json to_json() const;
};
RateStats rate_stats(const std::vector<RequestSample>& requests, const std::vector<Slo>& slos);

}  // namespace moesweep
