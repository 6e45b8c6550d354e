// compare's JSON (--json): the same facts as the Markdown, for tools; the
// gate's outcome and exit status among them.
#include <cmath>

#include "results/compare_format.hpp"
#include "util/error.hpp"

namespace moesweep {

namespace {

const char* metric_key(Metric m) {
  return m == Metric::kPp ? "pp" : "tg";
}

nlohmann::json number_or_null(double x) {
  return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr);
}

// An MDE as the slowdown fraction it means; null where the test cannot reach alpha.
nlohmann::json mde_json(double log_effect) {
  return std::isfinite(log_effect) ? nlohmann::json(mde_slowdown(log_effect))
                                   : nlohmann::json(nullptr);
}

const char* outcome_name(GateOutcome o) {
  switch (o) {
    case GateOutcome::kPass:
      return "pass";
    case GateOutcome::kRegression:
      return "regression";
    case GateOutcome::kInconclusive:
      return "inconclusive";
  }
  return "?";
}

nlohmann::json gate_json(const GateSummary& g) {
  return {{"outcome", outcome_name(g.outcome)},
          {"exit_code", gate_exit_code(g)},
          {"tests", g.tests},
          {"untestable", g.untestable},
          {"above_threshold", g.above},
          {"mde_min", mde_json(g.mde_lo)},
          {"mde_max", mde_json(g.mde_hi)},
          {"line", g.line}};
}

}  // namespace

int gate_exit_code(const GateSummary& g) {
  switch (g.outcome) {
    case GateOutcome::kPass:
      return exit_code::kOk;
    case GateOutcome::kRegression:
      return exit_code::kRegression;
    case GateOutcome::kInconclusive:
      return exit_code::kInconclusive;
  }
  return exit_code::kFailure;
}

namespace {

nlohmann::json metric_json(const MetricComparison& m) {
  return {{"n_base", m.n_base},
          {"n_new", m.n_new},
          {"base_mean", m.base_mean},
          {"base_sd", m.base_sd},
          {"new_mean", m.new_mean},
          {"new_sd", m.new_sd},
          {"ratio", m.ratio},
          {"ratio_ci95", {m.ratio_lo, m.ratio_hi}},
          {"test", test_kind_name(m.test)},
          {"paired", m.paired},
          {"statistic", number_or_null(m.result.statistic)},
          {"p_value", m.result.p_value},
          {"p_family", m.p_family},
          {"alpha", m.alpha},
          {"mde", mde_json(m.mde)},
          {"unable_to_tell", unable_to_tell(m)},
          {"verdict", verdict_name(m.verdict)}};
}

nlohmann::json aggregate_json(const Aggregate& a) {
  return {{"metric", metric_key(a.metric)},
          {"cells", a.cells},
          {"ratio", a.ratio},
          {"ratio_ci95", {a.ratio_lo, a.ratio_hi}},
          {"p_value", a.result.p_value},
          {"alpha", a.alpha},
          {"mde", mde_json(a.mde)},
          {"verdict", verdict_name(a.verdict)}};
}

nlohmann::json unmatched_json(const std::vector<Unmatched>& list) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& u : list)
    arr.push_back({{"key", u.key}, {"nearest", u.closest_other}, {"differs", u.differences}});
  return arr;
}

}  // namespace

nlohmann::json comparison_json(const Comparison& c) {
  nlohmann::ordered_json j;
  j["base"] = c.base_label;
  j["new"] = c.new_label;
  j["alpha"] = c.options.alpha;
  j["threshold"] = c.options.threshold;
  j["test"] = test_kind_name(c.options.test);
  j["family"] = family_name(c.options.family);
  j["paired"] = c.paired;
  j["ignored_key_fields"] = c.options.ignore;
  j["regressions"] = c.regressions;
  j["improvements"] = c.improvements;
  j["points"] = nlohmann::json::array();
  for (const auto& pc : c.points) {
    nlohmann::ordered_json jp;
    jp["key"] = pc.key;
    jp["model"] = pc.params.model_name;
    jp["quant"] = pc.params.quant;
    jp["n_threads"] = pc.params.n_threads;
    jp["n_kv"] = pc.params.n_kv;
    for (const auto& m : pc.metrics) jp[metric_key(m.metric)] = metric_json(m);
    j["points"].push_back(jp);
  }
  nlohmann::json aggregates = nlohmann::json::array();
  for (const Aggregate& a : c.aggregates) aggregates.push_back(aggregate_json(a));
  j["aggregates"] = aggregates;
  j["gate"] = gate_json(c.gate);
  j["only_in_base"] = unmatched_json(c.only_in_base);
  j["only_in_new"] = unmatched_json(c.only_in_new);
  j["failed_base"] = c.failed_base;
  j["failed_new"] = c.failed_new;
  j["duplicates"] = c.duplicates;
  j["environment_differences"] = c.environment_differences;
  j["engines"] = {
      {"base", c.base_engine}, {"new", c.new_engine}, {"joined_without", c.engine_fields_joined}};
  j["machine_class"] = {{"base", to_json(c.base_machine)},
                        {"new", to_json(c.new_machine)},
                        {"differences", c.machine_differences},
                        {"environment_change_allowed", c.options.allow_environment_change}};
  return j;
}

}  // namespace moesweep
