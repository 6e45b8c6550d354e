#include "serve/serve_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include "serve/rate_stats.hpp"
#include "util/markdown_table.hpp"

namespace moesweep {
namespace {

std::string num(double v, int prec) {
  return v < 0 ? "-" : fmt::format("{:.{}f}", v, prec);
}

double rate(int n, double ms) {
  return n >= 0 && ms > 0 ? n * 1000.0 / ms : -1;
}

double mean(const std::vector<double>& v) {
  return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / v.size();
}

nlohmann::json spread(const std::vector<double>& v) {
  return {{"mean", mean(v)}, {"p50", percentile(v, 50)}, {"p99", percentile(v, 99)}};
}

double metric_delta(const WorkloadRun& run, const std::string& name) {
  const auto a = run.metrics_after.find(name), b = run.metrics_before.find(name);
  if (a == run.metrics_after.end()) return -1;
  return a->second - (b == run.metrics_before.end() ? 0 : b->second);
}

// A counter's change, summed over its label sets ("name{...} value" lines); nullopt when absent.
std::optional<double> counter_delta(const std::map<std::string, double>& before,
                                    const std::map<std::string, double>& after,
                                    const std::string& name) {
  std::optional<double> d;
  for (const auto& [key, v] : after) {
    if (key != name && key.rfind(name + "{", 0) != 0) continue;
    const auto b = before.find(key);
    d = d.value_or(0) + v - (b == before.end() ? 0 : b->second);
  }
  return d;
}

}  // namespace

// The server's own prompt-cache hit ratio over the rate: llama-server's
// cached / (cached + processed) prompt tokens, or vLLM's prefix-cache hits / queries.
nlohmann::json server_cache_hits(const std::map<std::string, double>& before,
                                 const std::map<std::string, double>& after) {
  const auto cached = counter_delta(before, after, "llamacpp:prompt_tokens_cached_total");
  const auto processed = counter_delta(before, after, "llamacpp:prompt_tokens_total");
  if (cached && processed && *cached + *processed > 0)
    return {{"hit_ratio", *cached / (*cached + *processed)},
            {"from", "llamacpp:prompt_tokens_cached_total / (+ llamacpp:prompt_tokens_total)"}};
  const auto hits = counter_delta(before, after, "vllm:prefix_cache_hits_total");
  const auto queries = counter_delta(before, after, "vllm:prefix_cache_queries_total");
  if (hits && queries && *queries > 0)
    return {{"hit_ratio", *hits / *queries},
            {"from", "vllm:prefix_cache_hits_total / vllm:prefix_cache_queries_total"}};
  return {{"hit_ratio", nullptr}, {"from", "the server's /metrics has no prompt-cache counters"}};
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * v.size()));
  return v[std::clamp<size_t>(rank, 1, v.size()) - 1];
}

std::string request_table(const WorkloadRun& run) {
  MarkdownTable t({"Task", "PP", "TG", "N_KV", "T_PP s", "S_PP t/s", "T_TG s", "S_TG t/s",
                   "cache_n", "TTFT ms", "ITL p50 ms", "E2E ms"});
  for (const auto& rec : run.requests) {
    const CompletionResult& r = rec.r;
    if (!r.ok) {
      t.add_row({r.task, "FAILED: " + r.error, "", "", "", "", "", "", "", "", "", ""});
      continue;
    }
    const int cache = std::max(r.cache_n, 0);
    const int pp = r.prompt_n >= 0 ? r.prompt_n : r.prompt_tokens - cache;
    const int tg = r.predicted_n >= 0 ? r.predicted_n : r.generated;
    t.add_row({r.task, std::to_string(pp), std::to_string(tg), std::to_string(cache + pp + tg),
               num(r.prompt_ms / 1000, 3), num(rate(r.prompt_n, r.prompt_ms), 2),
               num(r.predicted_ms / 1000, 3), num(rate(r.predicted_n, r.predicted_ms), 2),
               r.cache_n >= 0 ? std::to_string(r.cache_n) : "-", num(r.ttft_ms, 1),
               num(percentile(r.itl_ms, 50), 1), num(r.e2e_ms, 1)});
  }
  return t.render();
}

nlohmann::json workload_summary(const WorkloadRun& run) {
  std::vector<double> ttft, itl, e2e, warm_ttft;
  long out_tokens = 0, prompt_tokens = 0, cached = 0;
  int ok = 0;
  for (const auto& rec : run.requests) {
    const CompletionResult& r = rec.r;
    if (!r.ok) continue;
    ++ok;
    ttft.push_back(r.ttft_ms);
    e2e.push_back(r.e2e_ms);
    itl.insert(itl.end(), r.itl_ms.begin(), r.itl_ms.end());
    out_tokens += r.generated;
    prompt_tokens += r.prompt_tokens;
    cached += std::max(r.cache_n, 0);
    if (&rec != &run.requests.front()) warm_ttft.push_back(r.ttft_ms);
  }
  nlohmann::json s = {{"workload", run.workload.name},
                      {"kind", run.workload.kind},
                      {"requests", run.requests.size()},
                      {"ok", ok},
                      {"failed", run.failed()},
                      {"interrupted", run.interrupted},
                      {"wall_s", run.wall_s},
                      {"requests_per_s", run.wall_s > 0 ? ok / run.wall_s : 0},
                      {"output_tokens_per_s", run.wall_s > 0 ? out_tokens / run.wall_s : 0},
                      {"ttft_ms", spread(ttft)},
                      {"itl_ms", spread(itl)},
                      {"e2e_ms", spread(e2e)},
                      {"prompt_tokens", prompt_tokens},
                      {"cached_tokens", cached},
                      {"cache_hit_ratio", prompt_tokens ? double(cached) / prompt_tokens : 0.0}};
  s["cache_protocol"] = run.workload.cache_protocol();
  if (run.workload.open_loop()) {
    s["rates"] = run.rates;
    if (!run.capacity.is_null()) s["capacity"] = run.capacity;
  } else if (!run.requests.empty() && run.requests.front().r.ok) {
    s["first_ttft_ms"] = run.requests.front().r.ttft_ms;
  }
  if (!warm_ttft.empty() && !run.workload.open_loop())
    s["later_ttft_ms_p50"] = percentile(warm_ttft, 50);
  nlohmann::json m = nlohmann::json::object();
  for (const char* name : {"llamacpp:prompt_tokens_total", "llamacpp:prompt_tokens_cached_total",
                           "llamacpp:prompt_seconds_total", "llamacpp:tokens_predicted_total",
                           "llamacpp:tokens_predicted_seconds_total"})
    if (double d = metric_delta(run, name); d >= 0) m[name] = d;
  s["metrics_delta"] = m;
  s["server_cache"] = server_cache_hits(run.metrics_before, run.metrics_after);
  for (const LevelSummary& l : run.levels)
    s["levels"].push_back({{"concurrency", l.concurrency},
                           {"wall_s", l.wall_s},
                           {"ok", l.ok},
                           {"failed", l.failed},
                           {"documents_per_hour", l.docs_per_hour()},
                           {"output_tokens_per_s", l.output_tps()}});
  return s;
}

std::string summary_text(const nlohmann::json& s) {
  std::string out = fmt::format(
      "{}: {} requests ({} failed) in {:.1f} s, {:.2f} req/s, {:.1f} output tokens/s\n"
      "  TTFT p50 {:.1f} ms p99 {:.1f} ms | ITL mean {:.1f} p50 {:.1f} p99 {:.1f} ms | E2E p50 "
      "{:.1f} ms\n  prompt-cache hit ratio {:.1f}% ({} of {} prompt tokens from the cache)\n",
      s["workload"].get<std::string>(), s["requests"].get<int>(), s["failed"].get<int>(),
      s["wall_s"].get<double>(), s["requests_per_s"].get<double>(),
      s["output_tokens_per_s"].get<double>(), s["ttft_ms"]["p50"].get<double>(),
      s["ttft_ms"]["p99"].get<double>(), s["itl_ms"]["mean"].get<double>(),
      s["itl_ms"]["p50"].get<double>(), s["itl_ms"]["p99"].get<double>(),
      s["e2e_ms"]["p50"].get<double>(), 100 * s["cache_hit_ratio"].get<double>(),
      s["cached_tokens"].get<long>(), s["prompt_tokens"].get<long>());
  if (s.contains("server_cache") && s["server_cache"]["hit_ratio"].is_number())
    out += fmt::format("  the server's own counters: {:.1f}% of prompt tokens from the cache\n",
                       100 * s["server_cache"]["hit_ratio"].get<double>());
  if (s.contains("first_ttft_ms") && s.contains("later_ttft_ms_p50"))
    out += fmt::format("  TTFT first request {:.1f} ms, later requests p50 {:.1f} ms\n",
                       s["first_ttft_ms"].get<double>(), s["later_ttft_ms_p50"].get<double>());
  if (s.contains("levels")) {
    MarkdownTable t({"concurrency", "docs", "failed", "wall s", "docs/hour", "output t/s"});
    for (const auto& l : s["levels"])
      t.add_row({std::to_string(l["concurrency"].get<int>()), std::to_string(l["ok"].get<int>()),
                 std::to_string(l["failed"].get<int>()), num(l["wall_s"].get<double>(), 2),
                 num(l["documents_per_hour"].get<double>(), 0),
                 num(l["output_tokens_per_s"].get<double>(), 1)});
    out += t.render();
    const auto best =
        std::max_element(s["levels"].begin(), s["levels"].end(), [](auto& a, auto& b) {
          return a["documents_per_hour"].template get<double>() <
                 b["documents_per_hour"].template get<double>();
        });
    out +=
        fmt::format("  sweet spot: concurrency {} ({:.0f} documents/hour)\n",
                    (*best)["concurrency"].get<int>(), (*best)["documents_per_hour"].get<double>());
  }
  return out;
}

nlohmann::json request_json(const std::string& workload, const RequestRecord& rec) {
  nlohmann::json j = rec.r.to_json();
  j["workload"] = workload;
  j["concurrency"] = rec.concurrency;
  j["itl_ms_mean"] = mean(rec.r.itl_ms);
  j["itl_ms_p50"] = percentile(rec.r.itl_ms, 50);
  j["itl_ms_p99"] = percentile(rec.r.itl_ms, 99);
  j["tpot_ms"] = rec.r.ok ? sample_of(rec.r).tpot_ms() : -1.0;
  if (!rec.r.token_ms.empty()) {  // --save-tokens
    j["token_ms"] = rec.r.token_ms;
    if (!rec.r.tokens.empty()) j["token_ids"] = rec.r.tokens;
  }
  const ArrivalStamp& a = rec.arrival;
  if (a.rate == 0 && a.phase == "measure") return j;  // closed loop
  j["request_rate"] = std::isinf(a.rate) ? nlohmann::json("inf") : nlohmann::json(a.rate);
  j["phase"] = a.phase;
  j["round"] = a.round;
  j["index"] = a.index;
  j["scheduled_s"] = a.scheduled_s;
  j["lag_ms"] = a.lag_ms;
  j["queued_ms"] = a.queued_ms;
  return j;
}

}  // namespace moesweep
