#include "serve/vllm_result.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "serve/rate_stats.hpp"

namespace moesweep {
namespace {

// numpy.percentile's default: linear between the closest ranks; 0 for none
// (vLLM computes np.percentile(values or 0, p)).
double np_percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double h = (v.size() - 1) * p / 100;
  const size_t lo = static_cast<size_t>(std::floor(h));
  return lo + 1 < v.size() ? v[lo] + (h - lo) * (v[lo + 1] - v[lo]) : v[lo];
}

double np_mean(const std::vector<double>& v) {
  return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / v.size();
}

double np_std(const std::vector<double>& v) {  // ddof 0
  const double m = np_mean(v);
  double ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  return v.empty() ? 0 : std::sqrt(ss / v.size());
}

void add_metric(nlohmann::json& j, const std::string& name, const std::vector<double>& ms) {
  j["mean_" + name + "_ms"] = np_mean(ms);
  j["median_" + name + "_ms"] = np_percentile(ms, 50);
  j["std_" + name + "_ms"] = np_std(ms);
  for (int p : {50, 90, 95, 99}) j[fmt::format("p{}_{}_ms", p, name)] = np_percentile(ms, p);
}

// The token times of a request (seconds, the run's clock): its first, then each gap.
std::vector<double> token_times(const CompletionResult& r) {
  std::vector<double> t = {r.start_s + r.ttft_ms / 1000};
  for (double gap : r.itl_ms) t.push_back(t.back() + gap / 1000);
  return t;
}

// vLLM's peak figures: output tokens in the busiest whole second, and the
// most requests in flight at once (a sweep over [start, end)).
void peaks(const std::vector<const RequestRecord*>& ok, nlohmann::json& j) {
  double first = 1e300, last = -1e300;
  std::vector<std::pair<double, int>> events;
  for (const RequestRecord* rec : ok) {
    first = std::min(first, rec->r.start_s);
    last = std::max(last, rec->r.start_s + rec->r.e2e_ms / 1000);
    events.push_back({rec->r.start_s, 1});
    events.push_back({rec->r.start_s + rec->r.e2e_ms / 1000, -1});
  }
  std::vector<double> per_second(ok.empty() ? 0 : size_t(std::ceil(last - first)) + 1, 0.0);
  for (const RequestRecord* rec : ok)
    for (double t : token_times(rec->r))
      if (const long b = static_cast<long>(t - first); b >= 0 && size_t(b) < per_second.size())
        per_second[size_t(b)] += 1;
  std::sort(events.begin(), events.end());
  int now = 0, most = 0;
  for (const auto& e : events) most = std::max(most, now += e.second);
  j["max_output_tokens_per_s"] =
      per_second.empty() ? 0.0 : *std::max_element(per_second.begin(), per_second.end());
  j["max_concurrent_requests"] = most;
  j["rtfx"] = 0.0;  // vLLM's inverse real-time factor: audio only
}

// vLLM's per-request lists (every request, failed ones with zeros) and the
// completed requests' metrics.
struct Columns {
  std::vector<const RequestRecord*> ok;
  std::vector<RequestSample> samples;
  std::vector<double> ttft, tpot, itl, e2e;
  nlohmann::json input_lens, output_lens, ttfts, itls, latencies, starts, errors;
  long total_in = 0, total_out = 0;
};

Columns columns_of(const std::vector<const RequestRecord*>& requests) {
  Columns c;
  for (const RequestRecord* rec : requests) {
    const CompletionResult& r = rec->r;
    c.samples.push_back(sample_of(r));
    c.input_lens.push_back(r.prompt_tokens);
    c.output_lens.push_back(r.ok ? r.generated : 0);
    c.ttfts.push_back(r.ok ? r.ttft_ms / 1000 : 0.0);
    nlohmann::json gaps = nlohmann::json::array();
    for (double g : r.itl_ms) gaps.push_back(g / 1000);
    c.itls.push_back(gaps);
    c.latencies.push_back(r.ok ? r.e2e_ms / 1000 : 0.0);
    c.starts.push_back(r.start_s);
    c.errors.push_back(r.error);
    if (!r.ok) continue;
    c.ok.push_back(rec);
    c.total_in += r.prompt_tokens;
    c.total_out += r.generated;
    c.ttft.push_back(r.ttft_ms);
    c.e2e.push_back(r.e2e_ms);
    c.itl.insert(c.itl.end(), r.itl_ms.begin(), r.itl_ms.end());
    if (c.samples.back().tpot_ms() >= 0) c.tpot.push_back(c.samples.back().tpot_ms());
  }
  return c;
}

}  // namespace

nlohmann::json vllm_result(const std::vector<const RequestRecord*>& requests,
                           const VllmRunInfo& info, const std::vector<Slo>& slos) {
  const Columns c = columns_of(requests);
  const std::vector<const RequestRecord*>& ok = c.ok;
  const long total_in = c.total_in, total_out = c.total_out;
  const double d = info.duration_s > 0 ? info.duration_s : 1;
  const RateStats stats = rate_stats(c.samples, slos);
  nlohmann::json j = {
      {"date", info.date},
      {"endpoint_type", info.backend},
      {"backend", info.backend},
      {"label", info.label},
      {"model_id", info.model_id},
      {"tokenizer_id", info.model_id},
      {"num_prompts", requests.size()},
      {"request_rate", std::isinf(info.rate) ? nlohmann::json("inf") : nlohmann::json(info.rate)},
      {"burstiness", info.burstiness},
      {"max_concurrency",
       info.max_concurrency > 0 ? nlohmann::json(info.max_concurrency) : nlohmann::json(nullptr)},
      {"duration", info.duration_s},
      {"completed", ok.size()},
      {"failed", requests.size() - ok.size()},
      {"total_input_tokens", total_in},
      {"total_output_tokens", total_out},
      {"request_throughput", ok.size() / d},
      {"request_goodput", slos.empty() ? nlohmann::json(nullptr) : nlohmann::json(stats.good / d)},
      {"output_throughput", total_out / d},
      {"total_token_throughput", (total_in + total_out) / d}};
  peaks(ok, j);
  add_metric(j, "ttft", c.ttft);
  add_metric(j, "tpot", c.tpot);
  add_metric(j, "itl", c.itl);
  add_metric(j, "e2el", c.e2e);
  j.update({{"input_lens", c.input_lens},
            {"output_lens", c.output_lens},
            {"ttfts", c.ttfts},
            {"itls", c.itls},
            {"latencies", c.latencies},
            {"start_times", c.starts},
            {"errors", c.errors}});
  return j;
}

std::string vllm_file_name(const std::string& workload, double rate, int max_concurrency,
                           const std::string& config, int round) {
  std::string name = fmt::format(
      "{}-{}qps{}-{}-{}.json", workload, std::isinf(rate) ? "inf" : fmt::format("{:g}", rate),
      max_concurrency > 0 ? fmt::format("-concurrency{}", max_concurrency) : "", config, round);
  for (char& ch : name)
    if (ch == '/' || ch == ' ' || static_cast<unsigned char>(ch) < 0x20) ch = '_';
  return name;
}

}  // namespace moesweep
