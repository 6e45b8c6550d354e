#include "serve/serve_compare.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "serve/serve_output.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"
#include "util/markdown_table.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;

using Group = std::vector<const nlohmann::json*>;  // the ok requests of one config / workload

// The workload as compared: an open-loop one per offered rate ("open-loop @ 2 req/s").
std::string workload_of(const nlohmann::json& r) {
  const std::string w = r.value("workload", "");
  if (!r.contains("request_rate")) return w;
  const auto& rate = r["request_rate"];
  return fmt::format(
      "{} @ {} req/s", w,
      rate.is_string() ? rate.get<std::string>() : fmt::format("{:.3g}", rate.get<double>()));
}

// The measured requests that ended well (an open-loop warm-up or prime is no measurement).
std::map<std::string, Group> groups_of(const ServeRun& run) {
  std::map<std::string, Group> out;
  for (const auto& r : run.requests)
    if (r.value("ok", false) && r.value("phase", "measure") == "measure")
      out[r.value("config", "default") + " / " + workload_of(r)].push_back(&r);
  return out;
}

double num(const nlohmann::json& r, const char* key) {
  return r.contains(key) && r[key].is_number() ? r[key].get<double>() : 0;
}

// One metric: the per-request samples the test sees and the statistic shown.
struct MetricDef {
  const char* name;
  bool lower_is_better;
  std::vector<double> (*samples)(const Group&);
  double (*value)(const Group&, const std::vector<double>&);
};

std::vector<double> field(const Group& g, const char* key) {
  std::vector<double> v;
  for (const auto* r : g) v.push_back(num(*r, key));
  return v;
}

std::vector<double> itl_samples(const Group& g) {
  std::vector<double> v;
  for (const auto* r : g)
    if (r->contains("itl_ms") && (*r)["itl_ms"].is_array())
      for (const auto& x : (*r)["itl_ms"])
        if (x.is_number()) v.push_back(x.get<double>());
  return v;
}

std::vector<double> rate_samples(const Group& g) {
  std::vector<double> v;
  for (const auto* r : g)
    if (num(*r, "e2e_ms") > 0) v.push_back(num(*r, "generated") * 1000 / num(*r, "e2e_ms"));
  return v;
}

// All output tokens over the span from the first request's start to the last end.
double aggregate_rate(const Group& g, const std::vector<double>&) {
  double first = 1e300, last = 0, tokens = 0;
  for (const auto* r : g) {
    first = std::min(first, num(*r, "start_s"));
    last = std::max(last, num(*r, "start_s") + num(*r, "e2e_ms") / 1000);
    tokens += num(*r, "generated");
  }
  return last > first ? tokens / (last - first) : 0.0;
}

std::vector<double> hit_samples(const Group& g) {
  std::vector<double> v;
  for (const auto* r : g)
    if (num(*r, "prompt_tokens") > 0)
      v.push_back(std::max(0.0, num(*r, "cache_n")) / num(*r, "prompt_tokens"));
  return v;
}

double aggregate_hits(const Group& g, const std::vector<double>&) {
  double cached = 0, prompt = 0;
  for (const auto* r : g) {
    cached += std::max(0.0, num(*r, "cache_n"));
    prompt += num(*r, "prompt_tokens");
  }
  return prompt > 0 ? cached / prompt : 0.0;
}

double p50(const Group&, const std::vector<double>& v) {
  return percentile(v, 50);
}
double p99(const Group&, const std::vector<double>& v) {
  return percentile(v, 99);
}

const std::vector<MetricDef>& metric_defs() {
  static const auto ttft = [](const Group& g) { return field(g, "ttft_ms"); };
  static const auto e2e = [](const Group& g) { return field(g, "e2e_ms"); };
  // Output tokens/s: tested on each request's own rate, shown as the aggregate.
  static const std::vector<MetricDef> defs = {
      {"TTFT p50 ms", true, ttft, p50},
      {"TTFT p99 ms", true, ttft, p99},
      {"ITL p50 ms", true, itl_samples, p50},
      {"E2E p50 ms", true, e2e, p50},
      {"output tokens/s", false, rate_samples, aggregate_rate},
      {"cache hit ratio", false, hit_samples, aggregate_hits}};
  return defs;
}

ServeMetricComparison compare_one(const MetricDef& d, const Group& base, const Group& fresh,
                                  const CompareOptions& o) {
  ServeMetricComparison m;
  m.name = d.name;
  m.lower_is_better = d.lower_is_better;
  const auto b = d.samples(base), n = d.samples(fresh);
  m.n_base = static_cast<int>(b.size());
  m.n_new = static_cast<int>(n.size());
  m.base = d.value(base, b);
  m.fresh = d.value(fresh, n);
  const double num_ = d.lower_is_better ? m.base : m.fresh,
               den = d.lower_is_better ? m.fresh : m.base;
  m.ratio = den > 0 ? num_ / den : 0;
  if (b.size() < 2 || n.size() < 2 || den <= 0 || num_ <= 0) return m;  // untestable
  m.test = resolve_test_kind(o.test, b.size(), n.size());
  m.result = run_test(m.test, b, n);
  if (!(m.result.p_value < o.alpha))  // NaN (two constant samples) is noise too
    m.verdict = Verdict::kNoise;
  else if (m.ratio <= 1 - o.threshold)
    m.verdict = Verdict::kRegression;
  else if (m.ratio >= 1 + o.threshold)
    m.verdict = Verdict::kImprovement;
  else
    m.verdict = Verdict::kSmall;
  return m;
}

}  // namespace

bool is_serve_run(const std::string& what) {
  std::error_code ec;
  if (!fs::is_directory(what, ec)) return false;
  const std::optional<RunMeta> meta = read_run_meta_if_present(what);
  return meta && meta->kind == RunKind::kServe;
}

ServeRun load_serve_run(const std::string& what) {
  ServeRun run;
  run.dir = what;
  run.meta = read_run_meta(what);
  run.facts = serve_facts_of(run.meta);
  // The directory's name: a run id, or what a copy was called.
  run.label = fs::path(what).lexically_normal().filename().string();
  if (run.label.empty()) run.label = fs::path(what).lexically_normal().parent_path().filename();
  const fs::path file = fs::path(what) / "requests.jsonl";
  std::error_code ec;
  if (!fs::exists(file, ec)) return run;
  ServeRequestsFile requests = read_serve_requests(file);
  run.requests = std::move(requests.lines);
  if (requests.torn) run.notes.push_back(torn_line_note(file, *requests.torn));
  return run;
}

ServeComparison compare_serve_runs(const ServeRun& base, const ServeRun& fresh,
                                   const CompareOptions& options) {
  ServeComparison c;
  c.base_label = base.label;
  c.new_label = fresh.label;
  const auto bg = groups_of(base), ng = groups_of(fresh);
  for (const auto& [key, group] : bg) {
    const auto it = ng.find(key);
    if (it == ng.end()) {
      c.only_in_base.push_back(key);
      continue;
    }
    ServeGroupComparison g;
    g.config = group.front()->value("config", "default");
    g.workload = workload_of(*group.front());
    for (const MetricDef& d : metric_defs()) {
      g.metrics.push_back(compare_one(d, group, it->second, options));
      c.regressions += g.metrics.back().verdict == Verdict::kRegression;
      c.improvements += g.metrics.back().verdict == Verdict::kImprovement;
    }
    c.groups.push_back(std::move(g));
  }
  for (const auto& [key, group] : ng)
    if (!bg.count(key)) c.only_in_new.push_back(key);
  return c;
}

std::string serve_comparison_markdown(const ServeComparison& c, const CompareOptions& o) {
  std::string out = fmt::format(
      "# serve compare: {} -> {}\n\nregression: p < {} and at least {:.0f}% worse; samples are "
      "the requests of each server configuration and workload\n\n",
      c.base_label, c.new_label, o.alpha, o.threshold * 100);
  MarkdownTable t({"config", "workload", "metric", "base", "new", "change", "n", "p", "verdict"});
  for (const auto& g : c.groups)
    for (const auto& m : g.metrics) {
      const double change = m.base != 0 ? (m.fresh / m.base - 1) * 100 : 0;
      t.add_row({g.config, g.workload, m.name, fmt::format("{:.3g}", m.base),
                 fmt::format("{:.3g}", m.fresh), fmt::format("{:+.1f}%", change),
                 fmt::format("{}/{}", m.n_base, m.n_new),
                 m.verdict == Verdict::kUntestable ? "-" : fmt::format("{:.3g}", m.result.p_value),
                 verdict_name(m.verdict)});
    }
  out += t.render();
  for (const auto& k : c.only_in_base) out += fmt::format("\nonly in base: {}", k);
  for (const auto& k : c.only_in_new) out += fmt::format("\nonly in new: {}", k);
  out += fmt::format("\n\n{} regression(s), {} improvement(s)\n", c.regressions, c.improvements);
  return out;
}

nlohmann::json serve_comparison_json(const ServeComparison& c) {
  nlohmann::json j = {{"kind", "serve"},
                      {"base", c.base_label},
                      {"new", c.new_label},
                      {"regressions", c.regressions},
                      {"improvements", c.improvements},
                      {"only_in_base", c.only_in_base},
                      {"only_in_new", c.only_in_new},
                      {"groups", nlohmann::json::array()}};
  for (const auto& g : c.groups) {
    nlohmann::json gj = {{"config", g.config}, {"workload", g.workload}};
    for (const auto& m : g.metrics)
      gj["metrics"].push_back({{"metric", m.name},
                               {"base", m.base},
                               {"new", m.fresh},
                               {"ratio", m.ratio},
                               {"n_base", m.n_base},
                               {"n_new", m.n_new},
                               {"test", test_kind_name(m.test)},
                               {"p_value", m.result.p_value},
                               {"verdict", verdict_name(m.verdict)}});
    j["groups"].push_back(gj);
  }
  return j;
}

ServeComparison compare_serve_dirs(const std::string& base, const std::string& fresh,
                                   const CompareOptions& options) {
  const bool b = is_serve_run(base), n = is_serve_run(fresh);
  if (b != n) {
    throw UserError(
        fmt::format("'{}' is a {} run and '{}' a {} run", base, b ? "serve-bench" : "sweep", fresh,
                    n ? "serve-bench" : "sweep"),
        "two serve-bench run directories, or two sweep runs: their metrics differ (TTFT and "
        "cache hits against S_PP and S_TG)",
        "compare a serve-bench run with another serve-bench run");
  }
  return compare_serve_runs(load_serve_run(base), load_serve_run(fresh), options);
}

void check_serve_common_ground(const ServeComparison& c, const std::string& base,
                               const std::string& fresh) {
  if (!c.groups.empty()) return;
  throw UserError(
      fmt::format("'{}' and '{}' have no server configuration and workload in common", base, fresh),
      "serve-bench runs of the same workloads (and -t/-c/--parallel/--cache-ram values)",
      "rerun with the same --workload and server axes as the base");
}

}  // namespace moesweep
