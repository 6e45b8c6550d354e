#include "serve/open_loop_workload.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <memory>

#include "serve/open_loop.hpp"
#include "serve/rate_stats.hpp"
#include "serve/request_sender.hpp"
#include "serve/serve_output.hpp"
#include "serve/traffic_prompts.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

using Clock = std::chrono::steady_clock;

struct Context {
  const Workload& w;
  const TrafficOptions& t;
  const ServeClient* client;
  const RunHooks& hooks;
  const RestartServer& restart;
  WorkloadRun& run;
  std::unique_ptr<TrafficPrompts> prompts;
  int round = 0;
  bool warmed = false;
};

struct Measured {
  RateStats stats;
  bool stop = false;     // Ctrl-C, or a server gone or hung: no more rates
  double sent_rate = 0;  // the rate the client really sent at (0: one request)
};

size_t requests_per_rate(const TrafficOptions& t) {
  if (t.num_requests > 0) return static_cast<size_t>(t.num_requests);
  return t.duration_s > 0 ? kMaxRequestsPerRate : kDefaultRequests;
}

// The prompt cache as the answers' cache_n saw it; a request that should
// have found nothing cached but did is an unexpected reuse (its PP was not
// its prompt length), said so in the rate's notes.
nlohmann::json cache_seen(const Context& c, const std::vector<const RequestRecord*>& recs,
                          nlohmann::json& notes) {
  long prompt = 0, cached = 0;
  int known = 0, unexpected = 0, most = 0;
  for (const RequestRecord* rec : recs) {
    if (!rec->r.ok || rec->r.cache_n < 0) continue;
    ++known;
    prompt += rec->r.prompt_tokens;
    cached += rec->r.cache_n;
    if (!c.w.prompts && !c.prompts->shares_prefix(rec->arrival.index) &&
        rec->r.cache_n > TrafficPrompts::kUnexpectedCacheTokens) {
      ++unexpected;
      most = std::max(most, rec->r.cache_n);
    }
  }
  nlohmann::json j = {{"requests_with_cache_n", known},
                      {"prompt_tokens", prompt},
                      {"cached_tokens", cached},
                      {"hit_ratio", prompt > 0 ? nlohmann::json(double(cached) / prompt)
                                               : nlohmann::json(nullptr)}};
  if (c.w.prompts) return j;  // a file's prompts may share what they like
  j["unexpected_reuse"] = unexpected;
  if (unexpected > 0)
    notes.push_back(fmt::format(
        "{} requests with a prompt of their own found up to {} tokens in the prompt cache: "
        "their prefill was shorter than their prompt",
        unexpected, most));
  if (known == 0)
    notes.push_back("no answer carried cache_n: the prompt cache was not checked per request");
  return j;
}

// The client's lateness and the rate it really sent at.
nlohmann::json client_lag(const Context& c, double rate,
                          const std::vector<const RequestRecord*>& recs, nlohmann::json& notes) {
  std::vector<double> lag, queued;
  double first = 1e300, last = -1e300;
  for (const RequestRecord* rec : recs) {
    lag.push_back(rec->arrival.lag_ms);
    queued.push_back(rec->arrival.queued_ms);
    first = std::min(first, rec->r.start_s);
    last = std::max(last, rec->r.start_s);
  }
  const Spread l = spread_of(lag);
  const double sent_rate = recs.size() > 1 && last > first ? (recs.size() - 1) / (last - first) : 0;
  nlohmann::json j = {{"lag_ms", l.to_json()},
                      {"lag_max_ms", lag.empty() ? 0 : *std::max_element(lag.begin(), lag.end())},
                      {"sent_rate", sent_rate}};
  if (c.t.max_concurrency > 0) j["queued_ms"] = spread_of(queued).to_json();
  // Behind: p99 lag over 10 ms and a tenth of the mean gap.
  const bool behind = std::isfinite(rate) && l.n > 0 && l.p99 > std::max(10.0, 100.0 / rate);
  j["behind"] = behind;
  if (behind)
    notes.push_back(fmt::format(
        "the client fell behind its schedule at {} req/s: lag p99 {:.0f} ms (max {:.0f} ms); it "
        "sent {:.3g} req/s. A loaded client machine sends less than asked",
        rate_text(rate), l.p99, j["lag_max_ms"].get<double>(), sent_rate));
  return j;
}

// "3 requests were ended by the server before their tokens (eos 2, word 1):
// failed, not counted in goodput"; "" when none were.
std::string stopped_early_text(const std::map<std::string, int>& by_reason) {
  int n = 0;
  std::string reasons;
  for (const auto& [reason, count] : by_reason) {
    n += count;
    reasons += fmt::format("{}{} {}", reasons.empty() ? "" : ", ", reason, count);
  }
  if (n == 0) return "";
  return fmt::format(
      "{} request(s) ended by the server before their tokens ({}): failed, not in the goodput", n,
      reasons);
}

void warm_up(Context& c, RequestSender& s) {
  for (int i = 0; i < c.w.warmup && !s.stopped() && s.why_not().empty(); ++i) {
    ArrivalStamp a;
    a.phase = "warmup";
    a.index = static_cast<size_t>(i);
    s.send(c.prompts->request(0, a.index), 1, a);
  }
}

// One rate, a round of its own: flushed, warmed, primed, measured, summarised;
// its arrivals end by `max_duration_s` too (> 0: the capacity search's budget left).
Measured measure(Context& c, double rate, double max_duration_s = 0) {
  const int round = ++c.round;
  if (c.w.flush == "restart" && c.restart) c.client = c.restart();
  RequestSender s(*c.client, c.hooks, c.run);
  if (!c.warmed || c.w.flush == "restart") warm_up(c, s);
  c.warmed = true;
  ArrivalStamp prime;
  prime.phase = "prime";
  prime.rate = rate;
  prime.round = round;
  if (const CompletionRequest p = c.prompts->prime(round); !p.prompt.empty() && !s.stopped())
    s.send(p, 1, prime);
  const size_t first = c.run.requests.size();
  const auto before = c.client->metrics();
  double duration = c.t.duration_s;
  if (max_duration_s > 0)
    duration = duration > 0 ? std::min(duration, max_duration_s) : max_duration_s;
  const OpenLoopSettings o{{rate, c.t.burstiness, c.w.seed},
                           round,
                           c.t.max_concurrency,
                           requests_per_rate(c.t),
                           duration};
  const OpenLoopOutcome out = run_open_loop(
      o, [&c, round](size_t i) { return c.prompts->request(round, i); }, s);
  const bool gone = !s.why_not().empty();
  const auto after = gone ? std::map<std::string, double>{} : c.client->metrics();
  std::vector<const RequestRecord*> recs;
  std::vector<RequestSample> samples;
  for (size_t i = first; i < c.run.requests.size(); ++i) {
    recs.push_back(&c.run.requests[i]);
    samples.push_back(sample_of(c.run.requests[i].r));
  }
  Measured m{rate_stats(samples, c.t.slos), out.interrupted || gone};
  nlohmann::json notes = nlohmann::json::array();
  nlohmann::json j = m.stats.to_json();
  j.update({{"rate", rate_json(rate)},
            {"round", round},
            {"burstiness", c.t.burstiness},
            {"max_concurrency", c.t.max_concurrency > 0 ? nlohmann::json(c.t.max_concurrency)
                                                        : nlohmann::json(nullptr)},
            {"scheduled", out.scheduled},
            {"interrupted", out.interrupted},
            {"wall_s", out.wall_s},
            {"client", client_lag(c, rate, recs, notes)},
            {"cache", cache_seen(c, recs, notes)},
            {"server_cache", gone ? nlohmann::json(nullptr) : server_cache_hits(before, after)}});
  if (gone) notes.push_back("the server stopped answering: " + s.why_not());
  if (const std::string early = stopped_early_text(m.stats.stopped_early); !early.empty())
    notes.push_back(early);
  if (m.stats.ok > 0 && m.stats.ok < 100)
    notes.push_back("with fewer than 100 requests, p99 is their largest value");
  j["notes"] = notes;
  m.sent_rate = j["client"]["sent_rate"].get<double>();
  c.run.rates.push_back(j);
  return m;
}

void search_capacity(Context& c) {
  const auto t0 = Clock::now();
  double start = c.t.rates.empty() ? 0 : c.t.rates.front();
  nlohmann::json from = {{"start", "--request-rate"}};
  if (start <= 0) {  // the server's own throughput, every request sent at once
    const Measured m = measure(c, kInfiniteRate);
    if (m.stop) return;
    start = m.stats.requests_per_s;
    from = {{"start", "throughput"}, {"throughput_req_per_s", start}};
  }
  const auto elapsed = [t0] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  // A rate runs no longer than the budget left (a low rate's requests take long).
  const auto probe = [&c, &elapsed](double rate) -> std::optional<CapacityProbe> {
    const Measured m = measure(c, rate, std::max(1.0, c.t.capacity.budget_s - elapsed()));
    if (m.stop) return std::nullopt;
    // What the probe really loaded the server at: sent, and served (one
    // request shows no rate at all).
    return CapacityProbe{rate, m.stats.slos_met(), m.stats.worst_slo_ratio(),
                         std::min(m.sent_rate, m.stats.requests_per_s)};
  };
  CapacityResult r;
  if (start > 0) r = find_capacity(probe, start, c.t.capacity, elapsed);
  c.run.capacity = r.to_json();
  c.run.capacity.update(from);
  c.run.capacity["slos"] = slos_label(c.t.slos);
  c.run.capacity["text"] = start > 0
                               ? r.text(slos_label(c.t.slos))
                               : "capacity unknown: no request ended when all were sent at once";
}

}  // namespace

nlohmann::json rate_json(double rate) {
  return std::isinf(rate) ? nlohmann::json("inf") : nlohmann::json(rate);
}

std::string rate_text(double rate) {
  return std::isinf(rate) ? "inf" : fmt::format("{:.3g}", rate);
}

WorkloadRun run_open_loop_workload(const Workload& w, const TrafficOptions& t,
                                   const ServeClient* client, const RunHooks& hooks,
                                   const RestartServer& restart) {
  WorkloadRun run;
  run.workload = w;
  const auto t0 = Clock::now();
  Context c{w, t, client, hooks, restart, run, std::make_unique<TrafficPrompts>(w, *client)};
  if (w.flush != "restart") run.metrics_before = client->metrics();
  if (t.find_capacity) {
    search_capacity(c);
  } else {
    for (double rate : t.rates)
      if (measure(c, rate).stop) break;
  }
  run.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  run.interrupted = hooks.interrupted && hooks.interrupted();
  const bool gone = hooks.server_gone && !hooks.server_gone().empty();
  if (w.flush != "restart" && !gone) run.metrics_after = c.client->metrics();
  return run;
}

}  // namespace moesweep
