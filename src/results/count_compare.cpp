#include "results/count_compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "results/compare.hpp"
#include "util/decimal_number.hpp"
#include "util/error.hpp"
#include "util/parse_list.hpp"

namespace moesweep {
namespace {

using nlohmann::json;

const json* simulated_of(const PhaseResult& p) {
  if (!p.counters.is_object() || !p.counters.contains("simulated")) return nullptr;
  const json& s = p.counters["simulated"];
  return s.is_object() ? &s : nullptr;
}

std::string cache_of(const LoadedRun& run) {
  for (const Record& r : run.records)
    for (const PhaseResult* p : {&r.pp, &r.tg})
      if (const json* s = simulated_of(*p);
          s && s->contains("caches") && (*s)["caches"].is_string())
        return (*s)["caches"].get<std::string>();
  return "";
}

std::string value_problem(const PhaseResult& p, const std::string& field, const char* side) {
  if (!p.counters.is_object() || !p.counters.contains(field))
    return fmt::format("{} has no {} (not a --counters sim run?)", side, field);
  const json& v = p.counters[field];
  if (v.is_number())
    return std::isfinite(v.get<double>()) ? "" : fmt::format("{}: not finite", side);
  if (v.is_object() && v.contains("unavailable") && v["unavailable"].is_string())
    return fmt::format("{}: {}", side, v["unavailable"].get<std::string>());
  return fmt::format("{}: {} is not a number", side, field);
}

CountCell compare_cell(const char* phase, const CountMetric& m, const PhaseResult& base,
                       const PhaseResult& fresh, double tolerance) {
  CountCell c;
  c.phase = phase;
  c.metric = m.name;
  c.why = value_problem(base, m.field, "base");
  if (c.why.empty()) c.why = value_problem(fresh, m.field, "new");
  if (!c.why.empty()) return c;  // kMissing
  c.base = base.counters[m.field].get<double>();
  c.fresh = fresh.counters[m.field].get<double>();
  c.ratio = c.base > 0 ? c.fresh / c.base : (c.fresh > 0 ? INFINITY : 1);
  c.tolerance = tolerance > 0 ? tolerance : m.tolerance;
  if (c.ratio - 1 > c.tolerance)
    c.verdict = CountVerdict::kMore;
  else if (1 - c.ratio > c.tolerance)
    c.verdict = CountVerdict::kFewer;
  else
    c.verdict = CountVerdict::kSame;
  return c;
}

std::map<std::string, const Record*> by_key(const LoadedRun& run,
                                            const std::set<std::string>& ignore,
                                            std::vector<std::string>& order) {
  std::map<std::string, const Record*> out;
  for (const Record& r : run.records) {
    if (!r.ok) continue;
    const std::string key = join_key(r.params, ignore);
    if (!out.count(key)) order.push_back(key);
    out[key] = &r;  // a later measurement of the same point wins
  }
  return out;
}

void tally(CountComparison& c) {
  for (const CountPoint& p : c.points)
    for (const CountCell& cell : p.cells) {
      c.more += cell.verdict == CountVerdict::kMore;
      c.fewer += cell.verdict == CountVerdict::kFewer;
      c.missing += cell.verdict == CountVerdict::kMissing;
      c.compared += cell.verdict != CountVerdict::kMissing;
    }
}

}  // namespace

const std::vector<CountMetric>& count_metrics() {
  static const std::vector<CountMetric> m = {
      {"instructions", "instructions_per_token", kWorkCountTolerance},
      {"data_reads", "data_reads_per_token", kWorkCountTolerance},
      {"data_writes", "data_writes_per_token", kWorkCountTolerance},
      {"d1_misses", "d1_misses_per_token", kMissCountTolerance},
      {"ll_misses", "ll_misses_per_token", kMissCountTolerance},
      {"dram_bytes", "dram_bytes_per_token", kMissCountTolerance}};
  return m;
}

const char* count_verdict_name(CountVerdict v) {
  switch (v) {
    case CountVerdict::kMore:
      return "MORE WORK";
    case CountVerdict::kFewer:
      return "less work";
    case CountVerdict::kSame:
      return "same";
    case CountVerdict::kMissing:
      return "not compared";
  }
  return "?";
}

bool is_count_metric_list(const std::string& text) {
  bool counts = false, other = false;
  for (const std::string& word : split_list(text, ',')) {
    const bool known = std::any_of(count_metrics().begin(), count_metrics().end(),
                                   [&](const CountMetric& m) { return word == m.name; });
    (known ? counts : other) = true;
  }
  if (counts && other) parse_count_metrics(text);  // names the word that is not a count metric
  return counts;
}

std::vector<CountMetric> parse_count_metrics(const std::string& text) {
  std::vector<CountMetric> out;
  for (const std::string& word : split_list(text, ',')) {
    auto it = std::find_if(count_metrics().begin(), count_metrics().end(),
                           [&](const CountMetric& m) { return word == m.name; });
    if (it == count_metrics().end())
      throw UserError(
          fmt::format("--metric: '{}' is not a count metric", word),
          "pp, tg or both (times); or counts, e.g. instructions,ll_misses (instructions, "
          "data_reads, data_writes, d1_misses, ll_misses, dram_bytes)",
          "compare times or counts in one call, not both");
    out.push_back(*it);
  }
  return out;
}

double parse_count_tolerance(const std::string& text) {
  std::string t = text;
  if (!t.empty() && t.back() == '%') t.pop_back();
  if (const std::optional<double> v = parse_decimal(t); v && *v > 0 && *v < 100) return *v / 100;
  throw UserError(fmt::format("--tolerance '{}' is not a percentage", text),
                  "a number above 0 and below 100, e.g. 0.05",
                  "pass --tolerance 0.05 for 0.05%, or leave it out for each metric's default");
}

int CountComparison::exit_status() const {
  if (more > 0) return exit_code::kRegression;
  const bool unseen = missing > 0 || !only_in_base.empty() || !only_in_new.empty();
  return unseen ? exit_code::kInconclusive : exit_code::kOk;
}

CountComparison compare_counts(const LoadedRun& base, const LoadedRun& fresh,
                               const std::vector<CountMetric>& metrics, double tolerance,
                               const std::set<std::string>& ignore) {
  CountComparison c;
  c.base_label = base.label, c.new_label = fresh.label, c.tolerance = tolerance;
  c.base_cache = cache_of(base), c.new_cache = cache_of(fresh);
  for (const auto& [label, cache] :
       {std::pair{c.base_label, c.base_cache}, std::pair{c.new_label, c.new_cache}})
    if (cache.empty())
      throw UserError(fmt::format("'{}' has no simulated counts", label),
                      "runs measured with --counters sim",
                      "rerun both sides with --counters sim -t 1");
  if (c.base_cache != c.new_cache)
    throw UserError(fmt::format("the two sides simulated different caches ({} against {})",
                                c.base_cache, c.new_cache),
                    "both sides with the same --sim-cache",
                    "rerun one side with the other's --sim-cache");
  std::vector<std::string> base_order, new_order;
  const auto b = by_key(base, ignore, base_order), n = by_key(fresh, ignore, new_order);
  for (const std::string& key : base_order) {
    if (!n.count(key)) {
      c.only_in_base.push_back(key);
      continue;
    }
    CountPoint p{key, b.at(key)->params, {}};
    for (const CountMetric& m : metrics) {
      p.cells.push_back(compare_cell("PP", m, b.at(key)->pp, n.at(key)->pp, tolerance));
      p.cells.push_back(compare_cell("TG", m, b.at(key)->tg, n.at(key)->tg, tolerance));
    }
    c.points.push_back(std::move(p));
  }
  for (const std::string& key : new_order)
    if (!b.count(key)) c.only_in_new.push_back(key);
  tally(c);
  if (c.compared == 0)
    throw UserError(fmt::format("'{}' and '{}' have no count in common", c.base_label, c.new_label),
                    "two runs of the same sweep under --counters sim",
                    "check the keys (compare --ignore FIELD leaves fields out of the join)");
  return c;
}

}  // namespace moesweep
