#include "serve/workload_runner.hpp"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "serve/prompt_pool.hpp"
#include "serve/request_sender.hpp"

namespace moesweep {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The system digest for request k: the shared one, or one broken at the top.
std::vector<int> system_for(const Workload& w, const ServeClient& c, const PromptPool& pool,
                            int k) {
  std::vector<int> sys = pool.take(0, w.system_tokens);
  if (w.break_cache == "none" || sys.empty()) return sys;
  if (!c.exact_tokens()) {  // no tokenizer: a different first word breaks the prefix
    sys[0] = (sys[0] + 1 + k) % kPromptWords;
    return sys;
  }
  const std::string head =
      w.break_cache == "timestamp"
          ? fmt::format("Current time: 2026-01-01 12:{:02}:{:02}\n", k / 60 % 60, k % 60)
          : std::string(k % 2 + 1, ' ');
  std::vector<int> top = c.tokenize(head);
  top.resize(std::min(top.size(), sys.size()));
  // Same length as the shared digest: only the top differs.
  return concat(top, std::vector<int>(sys.begin(), sys.end() - static_cast<long>(top.size())));
}

void prompt_cache(const Workload& w, const ServeClient& c, RequestSender& s) {
  const PromptPool pool(c, w.seed, static_cast<size_t>(w.pool_tokens()));
  for (int k = 0; k < w.requests && !s.stopped(); ++k) {
    const auto suffix = pool.take(w.system_tokens + size_t(k) * w.suffix_tokens, w.suffix_tokens);
    const std::string task =
        k == 0 ? "cold" : (w.break_cache == "none" ? "warm " : "broken ") + std::to_string(k);
    s.send({task, concat(system_for(w, c, pool, k), suffix), w.n_predict, false}, 1);
  }
}

void multi_turn(const Workload& w, const ServeClient& c, RequestSender& s) {
  const PromptPool pool(c, w.seed, static_cast<size_t>(w.pool_tokens()));
  std::vector<int> history = pool.take(0, w.system_tokens);
  for (int t = 0; t < w.requests && !s.stopped(); ++t) {
    history =
        concat(history, pool.take(w.system_tokens + size_t(t) * w.suffix_tokens, w.suffix_tokens));
    const CompletionResult r =
        s.send({fmt::format("turn {}", t + 1), history, w.n_predict, true}, 1);
    // The reply joins the history as the server made it (its token ids), so
    // the next turn's prefix matches the server's cache exactly.
    std::vector<int> reply = r.tokens;
    if (reply.empty()) reply = pool.take(0, std::min<size_t>(w.n_predict, pool.size()));
    history = concat(history, reply);
  }
}

void batch(const Workload& w, const ServeClient& c, RequestSender& s, WorkloadRun& run) {
  // New documents at every level: one seen before would come from a slot's cache.
  const int levels = static_cast<int>(w.concurrency.size());
  const PromptPool pool(c, w.seed, static_cast<size_t>(w.pool_tokens()));
  const std::vector<int> sys = pool.take(0, w.system_tokens);
  for (int li = 0; li < levels; ++li) {
    const int conc = w.concurrency[li];
    const size_t first_doc =
        w.system_tokens + static_cast<size_t>(li) * w.requests * w.suffix_tokens;
    if (s.stopped()) break;
    std::atomic<int> next{0};
    LevelSummary level;
    level.concurrency = conc;
    std::mutex mu;
    const auto t0 = Clock::now();
    auto worker = [&] {
      for (int d; (d = next++) < w.requests && !s.stopped();) {
        const auto doc = pool.take(first_doc + size_t(d) * w.suffix_tokens, w.suffix_tokens);
        const CompletionResult r = s.send(
            {fmt::format("c{} doc {}", conc, d + 1), concat(sys, doc), w.n_predict, false}, conc);
        std::lock_guard lock(mu);
        (r.ok ? level.ok : level.failed)++;
        if (r.ok) level.output_tokens += r.generated;
      }
    };
    std::vector<std::thread> threads;
    for (int i = 0; i < conc; ++i) threads.emplace_back(worker);
    for (auto& th : threads) th.join();
    level.wall_s = seconds_since(t0);
    run.levels.push_back(level);
  }
}

}  // namespace

int WorkloadRun::failed() const {
  // A capacity search overloads the server on purpose: requests that failed
  // (timed out, refused) in the probes above the capacity it found are what
  // told it the rate was too high. They stay in requests.jsonl and in their
  // rate's table; the run did what it was asked.
  const std::string outcome = capacity.is_object() ? capacity.value("outcome", "") : "";
  if (outcome == "found" || outcome == "above") return 0;
  int n = 0;
  for (const auto& r : requests) n += !r.r.ok;
  return n;
}

WorkloadRun run_workload(const Workload& w, const ServeClient& client, const RunHooks& hooks) {
  WorkloadRun run;
  run.workload = w;
  run.metrics_before = client.metrics();
  const auto t0 = Clock::now();
  RequestSender sender(client, hooks, run);
  if (w.kind == "prompt-cache")
    prompt_cache(w, client, sender);
  else if (w.kind == "multi-turn")
    multi_turn(w, client, sender);
  else
    batch(w, client, sender, run);
  run.wall_s = seconds_since(t0);
  run.interrupted = sender.stopped();
  if (!hooks.server_gone || hooks.server_gone().empty()) run.metrics_after = client.metrics();
  return run;
}

}  // namespace moesweep
