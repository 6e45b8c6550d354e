// A phase's counts under --counters sim: one callgrind dump per timed
// repetition, checked (its label names the decode that was timed, its caches
// are the ones asked for), summed, and turned into per-token fields.
#include <fmt/format.h>

#include <filesystem>

#include "counters/callgrind_dump.hpp"
#include "counters/derived_metrics.hpp"
#include "counters/sim_backend.hpp"
#include "util/error.hpp"

namespace moesweep::counters {
using nlohmann::json;

namespace {

constexpr const char* kEvents[] = {"Ir",   "Dr",   "Dw",   "I1mr", "D1mr",
                                   "D1mw", "ILmr", "DLmr", "DLmw"};

// Counts that cannot all be true of one run ("" when they can): a miss is an
// access that missed, so no level misses more than it was accessed, and the
// LL is accessed only by the L1s' misses.
std::string contradiction(const std::map<std::string, uint64_t>& events) {
  static constexpr std::pair<const char*, const char*> kMissOf[] = {
      {"I1mr", "Ir"},   {"D1mr", "Dr"},   {"D1mw", "Dw"},
      {"ILmr", "I1mr"}, {"DLmr", "D1mr"}, {"DLmw", "D1mw"}};
  for (const auto& [miss, access] : kMissOf) {
    const auto m = events.find(miss), a = events.find(access);
    if (m != events.end() && a != events.end() && m->second > a->second)
      return fmt::format("callgrind's counts contradict each other: {} {} misses of {} {} accesses",
                         m->second, miss, a->second, access);
  }
  return "";
}

// Why `dump` is not the count of the phase just timed ("" when it is).
std::string dump_problem(const CallgrindDump& dump, const SimCacheConfig& cache, int tokens) {
  const std::string expected = fmt::format("moesweep decode tokens={} ", tokens);
  if (dump.label().rfind(expected, 0) != 0)
    return fmt::format("the callgrind dump is of '{}', not of the timed decode of {} tokens",
                       dump.trigger, tokens);
  if (dump.ll != cache.ll || dump.d1 != cache.d1 || dump.i1 != cache.i1)
    return fmt::format("valgrind simulated other caches (LL {}) than asked for ({})",
                       dump.ll ? geometry_text(*dump.ll) : "unknown", sim_cache_label(cache));
  for (const char* e : kEvents)
    if (!dump.totals.count(e))
      return fmt::format("callgrind counted no '{}' (cache simulation off?)", e);
  return contradiction(dump.totals);
}

// Why `dump` is not token `index` of the `tokens` of a phase ("" when it is).
std::string token_dump_problem(const CallgrindDump& dump, size_t index, int tokens) {
  const std::string expected = fmt::format("moesweep token index={} of={}", index, tokens);
  if (dump.label() != expected)
    return fmt::format("the callgrind dump is of '{}', not of token {} of the timed decode of {}",
                       dump.trigger, index, tokens);
  return "";
}

uint64_t ll_misses(const std::map<std::string, uint64_t>& e) {
  return e.at("ILmr") + e.at("DLmr") + e.at("DLmw");
}

class SimSession : public CounterSession {
 public:
  // region: the point and phase ("p3-tg"), the kept dumps' names.
  SimSession(const SimBackend& backend, std::string region)
      : backend_(backend), region_(std::move(region)) {}

  void start() override {
    pid_ = backend_.pid();
    if (pid_ > 0) backend_.discard_dumps(pid_);  // the untimed decodes since the last phase
  }

  void stop(double, int tokens) override {
    per_token_ = nullptr;
    ++stops_;
    if (!why_.empty()) return;  // one repetition without counts: the phase has none
    if (pid_ <= 0) return fail("no engine worker was attached to the counters");
    const std::vector<std::filesystem::path> dumps = backend_.dumps_of(pid_);
    // --sim-per-token: one dump per generated token, then the phase's own
    const size_t expected = backend_.per_token() ? static_cast<size_t>(tokens) + 1 : 1;
    if (dumps.size() != expected && dumps.size() != 1) return fail(no_dump_reason(dumps.size()));
    std::map<std::string, uint64_t> sum;
    json ll = json::array(), ir = json::array();
    for (size_t i = 0; i < dumps.size(); ++i) {
      CallgrindDump dump;
      try {  // valgrind's output, not the user's file: this point's counts only
        dump = read_callgrind_dump(dumps[i]);
      } catch (const UserError& e) {
        for (size_t j = i; j < dumps.size(); ++j) dispose(dumps[j], j + 1 == dumps.size(), j);
        return fail("the callgrind dump is unreadable: " + e.problem());
      }
      const bool last = i + 1 == dumps.size();
      dispose(dumps[i], last, i);
      if (const std::string problem = last ? dump_problem(dump, backend_.cache(), tokens)
                                           : token_dump_problem(dump, i, tokens);
          !problem.empty())
        return fail(problem);
      creator_ = dump.creator;
      for (const char* e : kEvents) {
        auto it = dump.totals.find(e);
        if (it == dump.totals.end())
          return fail(fmt::format("callgrind counted no '{}' (cache simulation off?)", e));
        // each dump zeroes the counts: the phase is the sum of its dumps
        if (__builtin_add_overflow(sum[e], it->second, &sum[e]))
          return fail(fmt::format("callgrind's '{}' counts of one phase overflow 64 bits", e));
      }
      if (!last) ll.push_back(ll_misses(dump.totals)), ir.push_back(dump.totals.at("Ir"));
    }
    for (const auto& [e, n] : sum)
      if (__builtin_add_overflow(events_[e], n, &events_[e]))
        return fail(
            fmt::format("callgrind's '{}' counts of {} repetitions overflow 64 bits when summed", e,
                        repetitions_ + 1));
    const json one = simulated_metrics(sum, tokens, backend_.cache().ll.line_bytes);
    for (const std::string& name : simulated_metric_names()) per_rep_[name].push_back(one[name]);
    if (!ll.empty()) per_token_ = {{"ll_misses", ll}, {"instructions", ir}};
    tokens_ += tokens;
    ++repetitions_;
  }

  json per_token() const override { return per_token_; }

  json result() const override {
    json out = why_.empty() ? simulated_metrics(events_, tokens_, backend_.cache().ll.line_bytes)
                            : json::object();
    if (!why_.empty()) out = all_unavailable(simulated_metric_names(), why_);
    mark_sources(out, simulated_metric_names(), "simulated");
    out["simulated"] = {{"cache", sim_cache_label(backend_.cache())},
                        {"caches", sim_cache_text(backend_.cache())},
                        {"tool", creator_.empty() ? "callgrind" : creator_},
                        {"repetitions", repetitions_},
                        {"tokens", tokens_},
                        {"events", events_},
                        {"per_repetition", per_rep_}};
    if (!kept_.empty()) out["simulated"]["dumps"] = kept_;
    if (!keep_problem_.empty()) out["simulated"]["dumps_not_kept"] = keep_problem_;
    return out;
  }

 private:
  void fail(const std::string& why) { why_ = why; }

  // Dump `index` of this stop: the phase's own (`last`) or a token's, kept
  // as p3-tg-rep0.callgrind, p3-tg-rep0-token5.callgrind (--sim-keep-dumps).
  void dispose(const std::filesystem::path& dump, bool last, size_t index) {
    const std::string name =
        last ? fmt::format("{}-rep{}.callgrind", region_, stops_ - 1)
             : fmt::format("{}-rep{}-token{}.callgrind", region_, stops_ - 1, index);
    const SimBackend::Disposed d = backend_.dispose_dump(dump, name);
    if (!d.kept.empty()) kept_.push_back(d.kept);
    if (!d.problem.empty()) keep_problem_ = d.problem;
  }

  static std::string no_dump_reason(size_t n) {
    if (n > 1) return fmt::format("{} callgrind dumps for one timed phase (expected 1)", n);
    return "no callgrind dump came for this phase: the engine worker was built without "
           "valgrind's callgrind.h (install valgrind, then rebuild with scripts/setup), or is "
           "another program (an exec engine)";
  }

  const SimBackend& backend_;
  std::string region_;
  int pid_ = 0;
  int stops_ = 0;              // timed repetitions seen, counted or not
  json kept_ = json::array();  // the kept dumps, relative to the run directory
  std::string keep_problem_;
  std::map<std::string, uint64_t> events_;
  std::map<std::string, json> per_rep_;
  double tokens_ = 0;
  int repetitions_ = 0;
  std::string creator_, why_;
  json per_token_;  // the last stop()'s per-token counts (--sim-per-token), or null
};

}  // namespace

const std::vector<std::string>& simulated_metric_names() {
  static const std::vector<std::string> names = {"instructions_per_token", "data_reads_per_token",
                                                 "data_writes_per_token",  "d1_misses_per_token",
                                                 "ll_misses_per_token",    "ll_hit_rate",
                                                 "dram_bytes_per_token"};
  return names;
}

json simulated_metrics(const std::map<std::string, uint64_t>& events, double tokens,
                       int line_bytes) {
  json out = json::object();
  std::string missing;
  for (const char* e : kEvents)
    if (!events.count(e)) missing = e;
  const std::string contradicted = missing.empty() ? contradiction(events) : "";
  if (!missing.empty() || tokens <= 0 || !contradicted.empty()) {
    const std::string why = tokens <= 0        ? "no token was decoded in this phase"
                            : !missing.empty() ? fmt::format("callgrind counted no '{}'", missing)
                                               : contradicted;
    return all_unavailable(simulated_metric_names(), why);
  }
  const auto n = [&](const char* e) { return static_cast<double>(events.at(e)); };
  const double ll_misses = n("ILmr") + n("DLmr") + n("DLmw");
  const double ll_accesses = n("I1mr") + n("D1mr") + n("D1mw");  // every L1 miss goes to the LL
  out["instructions_per_token"] = n("Ir") / tokens;
  out["data_reads_per_token"] = n("Dr") / tokens;
  out["data_writes_per_token"] = n("Dw") / tokens;
  out["d1_misses_per_token"] = (n("D1mr") + n("D1mw")) / tokens;
  out["ll_misses_per_token"] = ll_misses / tokens;
  out["ll_hit_rate"] = ll_accesses > 0 ? json(1 - ll_misses / ll_accesses)
                                       : json{{"unavailable", "no access reached the LL"}};
  out["dram_bytes_per_token"] = ll_misses * line_bytes / tokens;
  return out;
}

std::unique_ptr<CounterSession> SimBackend::session(const std::string&, const std::string& region) {
  return std::make_unique<SimSession>(*this, region);
}

}  // namespace moesweep::counters
