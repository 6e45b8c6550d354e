#include "serve/rate_stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "serve/serve_output.hpp"

namespace moesweep {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

nlohmann::json finite_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

double stat_of(const std::vector<double>& v, const Slo& slo) {
  if (v.empty()) return 0;
  if (slo.stat == "mean") return std::accumulate(v.begin(), v.end(), 0.0) / v.size();
  return percentile(v, slo.percent());
}

// A request's own value of an SLO's metric (inf when it failed).
double request_value(const RequestSample& r, const Slo& slo) {
  if (!r.ok) return kInf;
  if (slo.metric == "ttft") return r.ttft_ms;
  if (slo.metric == "e2e") return r.e2e_ms;
  if (slo.metric == "tpot") return std::max(0.0, r.tpot_ms());
  return stat_of(r.itl_ms, slo);
}

// The rate's value of an SLO: its statistic over every request sent.
double rate_value(const std::vector<RequestSample>& rs, const Slo& slo) {
  std::vector<double> v;
  for (const RequestSample& r : rs) {
    if (slo.metric != "itl" || !r.ok)
      v.push_back(request_value(r, slo));
    else
      v.insert(v.end(), r.itl_ms.begin(), r.itl_ms.end());
  }
  return stat_of(v, slo);
}

}  // namespace

double RequestSample::tpot_ms() const {
  return generated > 1 ? (e2e_ms - ttft_ms) / (generated - 1) : -1;
}

RequestSample sample_of(const CompletionResult& r) {
  return {r.ok,        r.stop_reason, r.start_s, r.ttft_ms, r.e2e_ms, r.prompt_tokens,
          r.generated, r.cache_n,     r.itl_ms};
}

RequestSample sample_of_line(const nlohmann::json& j) {
  RequestSample r;
  r.ok = j.value("ok", false);
  r.stop_reason = j.value("stop_reason", std::string());
  r.start_s = j.value("start_s", 0.0);
  r.ttft_ms = j.value("ttft_ms", 0.0);
  r.e2e_ms = j.value("e2e_ms", 0.0);
  r.prompt_tokens = j.value("prompt_tokens", 0);
  r.generated = j.value("generated", 0);
  r.cache_n = j.value("cache_n", -1);
  if (j.contains("itl_ms")) r.itl_ms = j["itl_ms"].get<std::vector<double>>();
  return r;
}

double Spread::at(const std::string& stat) const {
  if (stat == "mean") return mean;
  if (stat == "p50") return p50;
  if (stat == "p90") return p90;
  if (stat == "p95") return p95;
  return p99;
}

nlohmann::json Spread::to_json() const {
  nlohmann::json j = {{"n", n}};
  for (const char* stat : {"mean", "p50", "p90", "p95", "p99"})
    j[stat] = n > 0 ? finite_or_null(at(stat)) : nlohmann::json(nullptr);
  return j;
}

Spread spread_of(const std::vector<double>& v) {
  Spread s;
  s.n = static_cast<int>(v.size());
  if (v.empty()) return s;
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / v.size();
  s.p50 = percentile(v, 50);
  s.p90 = percentile(v, 90);
  s.p95 = percentile(v, 95);
  s.p99 = percentile(v, 99);
  return s;
}

bool RateStats::slos_met() const {
  return std::all_of(slos.begin(), slos.end(), [](const SloCheck& c) { return c.met; });
}

double RateStats::worst_slo_ratio() const {
  double worst = 0;
  for (const SloCheck& c : slos) worst = std::max(worst, c.value / c.slo.bound_ms);
  return worst;
}

RateStats rate_stats(const std::vector<RequestSample>& rs, const std::vector<Slo>& slos) {
  RateStats s;
  std::vector<double> ttft, tpot, itl, e2e;
  double first = kInf, last = -kInf;
  for (const RequestSample& r : rs) {
    ++s.sent;
    first = std::min(first, r.start_s);
    last = std::max(last, r.start_s + r.e2e_ms / 1000);
    if (!r.ok && !r.stop_reason.empty()) ++s.stopped_early[r.stop_reason];
    if (!r.ok) continue;
    ++s.ok;
    s.input_tokens += r.prompt_tokens;
    s.output_tokens += r.generated;
    s.cached_tokens += std::max(0, r.cache_n);
    ttft.push_back(r.ttft_ms);
    e2e.push_back(r.e2e_ms);
    if (r.tpot_ms() >= 0) tpot.push_back(r.tpot_ms());
    itl.insert(itl.end(), r.itl_ms.begin(), r.itl_ms.end());
  }
  s.failed = s.sent - s.ok;
  s.duration_s = s.sent > 0 ? std::max(0.0, last - first) : 0;
  const double per_s = s.duration_s > 0 ? 1 / s.duration_s : 0;
  s.requests_per_s = s.ok * per_s;
  s.input_tokens_per_s = s.input_tokens * per_s;
  s.output_tokens_per_s = s.output_tokens * per_s;
  s.ttft = spread_of(ttft);
  s.tpot = spread_of(tpot);
  s.itl = spread_of(itl);
  s.e2e = spread_of(e2e);
  if (slos.empty()) return s;
  for (const Slo& slo : slos) {
    const double v = rate_value(rs, slo);
    s.slos.push_back({slo, v, v <= slo.bound_ms});
  }
  long good_tokens = 0;
  for (const RequestSample& r : rs) {
    const bool good = std::all_of(slos.begin(), slos.end(), [&](const Slo& slo) {
      return request_value(r, slo) <= slo.bound_ms;
    });
    s.good += good;
    if (good) good_tokens += r.generated;
  }
  s.goodput_requests_per_s = s.good * per_s;
  s.goodput_tokens_per_s = good_tokens * per_s;
  return s;
}

nlohmann::json RateStats::to_json() const {
  nlohmann::json j = {{"sent", sent},
                      {"ok", ok},
                      {"failed", failed},
                      {"duration_s", duration_s},
                      {"input_tokens", input_tokens},
                      {"output_tokens", output_tokens},
                      {"cached_tokens", cached_tokens},
                      {"requests_per_s", requests_per_s},
                      {"input_tokens_per_s", input_tokens_per_s},
                      {"output_tokens_per_s", output_tokens_per_s},
                      {"ttft_ms", ttft.to_json()},
                      {"tpot_ms", tpot.to_json()},
                      {"itl_ms", itl.to_json()},
                      {"e2e_ms", e2e.to_json()},
                      {"stopped_early", stopped_early}};
  if (slos.empty()) return j;
  for (const SloCheck& c : slos)
    j["slos"].push_back({{"slo", c.slo.key()},
                         {"bound_ms", c.slo.bound_ms},
                         {"value_ms", finite_or_null(c.value)},
                         {"met", c.met}});
  j["slos_met"] = slos_met();
  j["goodput"] = {{"good", good},
                  {"share", sent > 0 ? double(good) / sent : 0.0},
                  {"requests_per_s", goodput_requests_per_s},
                  {"output_tokens_per_s", goodput_tokens_per_s}};
  return j;
}

}  // namespace moesweep
