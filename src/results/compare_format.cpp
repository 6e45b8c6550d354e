#include "results/compare_format.hpp"

#include <fmt/format.h>

#include <cmath>

namespace moesweep {
namespace {

std::string mean_sd(double mean, double sd, int n) {
  if (n == 0) return "-";
  if (n == 1) return fmt::format("{:.2f}", mean);
  return fmt::format("{:.2f} ± {:.2f}", mean, sd);
}

std::string p_number(double p) {
  return p < 0.001 ? "<0.001" : fmt::format("{:.3f}", p);
}

// "0.012 (paired-t)", with Holm's adjusted p when the family changed it.
std::string p_text(const MetricComparison& m) {
  if (m.verdict == Verdict::kUntestable) return "-";
  if (m.p_family != m.result.p_value)
    return fmt::format("{} (Holm {}; {})", p_number(m.result.p_value), p_number(m.p_family),
                       test_kind_name(m.test));
  return fmt::format("{} ({})", p_number(m.result.p_value), test_kind_name(m.test));
}

std::string verdict_cell(const MetricComparison& m) {
  return m.verdict == Verdict::kRegression ? "**REGRESSION**" : verdict_name(m.verdict);
}

void unmatched_section(std::string& out, const char* title, const std::vector<Unmatched>& list,
                       const std::string& other) {
  if (list.empty()) return;
  out += fmt::format("\n### {} ({}), not compared\n\n", title, list.size());
  for (const auto& u : list) {
    out += fmt::format("- `{}`\n", u.key);
    if (!u.closest_other.empty()) {
      out += fmt::format("  - nearest in {}: differs in {}\n", other, u.differences);
    }
  }
}

// First thing a reader sees: whether the two runs are of one machine class.
std::string machine_class_lines(const Comparison& c) {
  const std::string base_id = machine_class_id(c.base_machine);
  const std::string new_id = machine_class_id(c.new_machine);
  if (!c.machine_differences.empty()) {
    std::string what;
    for (const auto& d : c.machine_differences) what += (what.empty() ? "" : "; ") + d;
    return fmt::format(
        "**Environment change allowed (--allow-environment-change): base and new were measured "
        "on different machine classes (`{}` -> `{}`): {}. The differences below include the "
        "machine's, not only the code's.**\n\n",
        base_id, new_id, what);
  }
  if (!c.base_machine.known || !c.new_machine.known) {
    return fmt::format(
        "Machine class: base `{}`, new `{}` (a side without meta.json is not checked).\n\n",
        base_id, new_id);
  }
  return fmt::format("Machine class: `{}` (both).\n\n", new_id);
}

std::string family_text(const Comparison& c) {
  switch (c.options.family) {
    case Family::kHolm:
      return fmt::format("after Holm's adjustment over the {} test(s)", c.gate.tests);
    case Family::kGeomean:
      return "per cell; the gate is the geometric mean ratio of each metric across the cells";
    case Family::kGeomeanHolm:
      return fmt::format(
          "the cells after Holm's adjustment over the {} test(s) at alpha / 2, the geometric mean "
          "ratio of each metric across the cells at the other half: either fails the gate, the "
          "geometric means say whether it could see the threshold",
          c.gate.tests);
    case Family::kNone:
      return "each cell on its own, no family control";
  }
  return "";
}

// The header: what a real regression is, and the fields left out of the join.
std::string header_lines(const Comparison& c) {
  const CompareOptions& o = c.options;
  std::string out = fmt::format("## moesweep compare: {} -> {}\n\n", c.base_label, c.new_label);
  out += machine_class_lines(c);
  if (!c.base_engine.empty() || !c.new_engine.empty()) {
    out += c.base_engine == c.new_engine
               ? fmt::format("Engine: {} (both).\n\n", c.base_engine)
               : fmt::format("Engines compared: base {} -> new {}.\n\n",
                             c.base_engine.empty() ? "(not recorded)" : c.base_engine,
                             c.new_engine.empty() ? "(not recorded)" : c.new_engine);
  }
  out += fmt::format(
      "Real regression = two-sided p < {} ({}) AND the ratio's 95% CI reaching {:g}% below base. "
      "Tests on the kept samples (tokens/s per repetition); test: {}{}. Ratio = new / base{}. "
      "MDE = the smallest slowdown the cell would detect with 90% power at the alpha its verdict "
      "faces{}: noise = not significant with the MDE within {:g}%, inconclusive = beyond it; `?` "
      "= the change the cell reports is smaller than its MDE (unable to tell).\n\n",
      o.alpha, family_text(c), o.threshold * 100, test_kind_name(o.test),
      c.paired ? " (the two sides are engines of one run: their repetitions are pairs)" : "",
      c.paired ? " (paired: the geometric mean of the pairs' ratios)" : "",
      o.family == Family::kHolm          ? " (alpha / tests under Holm)"
      : o.family == Family::kGeomeanHolm ? " (alpha / 2 / tests for a cell under geomean+holm)"
                                         : "",
      o.threshold * 100);
  if (!o.ignore.empty()) {
    std::string fields;
    for (const auto& f : o.ignore) fields += (fields.empty() ? "" : ", ") + f;
    out += fmt::format("Key fields ignored for the join: {}.\n\n", fields);
  }
  return out;
}

}  // namespace

std::string ratio_cell(const MetricComparison& m) {
  if (m.n_base == 0 || m.n_new == 0 || !std::isfinite(m.ratio)) return "-";
  if (m.ratio_hi <= 0 || !std::isfinite(m.ratio_lo) || !std::isfinite(m.ratio_hi))
    return fmt::format("{:.3f}", m.ratio);
  return fmt::format("{:.3f} [{:.3f}, {:.3f}], MDE {}{}", m.ratio, m.ratio_lo, m.ratio_hi,
                     mde_percent(m.mde), unable_to_tell(m) ? " ?" : "");
}

bool unable_to_tell(const MetricComparison& m) {
  const bool significant = m.verdict == Verdict::kRegression ||
                           m.verdict == Verdict::kImprovement || m.verdict == Verdict::kSmall;
  return !significant && m.verdict != Verdict::kUntestable &&
         mde_slowdown(m.mde) > std::fabs(1 - m.ratio);
}

namespace {

// One compared point: its key fields, then base / new / ratio / p / verdict per metric.
std::string point_row(const PointComparison& pc, const std::vector<Metric>& metrics) {
  const PointParams& p = pc.params;
  std::string out =
      fmt::format("| {} | {} | {} | {} | {}/{} | {} | {} |", p.model_name, p.quant, p.n_threads,
                  p.n_ubatch, p.type_k, p.type_v, flash_attn_name(p.flash_attn), p.n_kv);
  for (Metric want : metrics) {
    const MetricComparison* m = nullptr;
    for (const auto& candidate : pc.metrics) {
      if (candidate.metric == want) m = &candidate;
    }
    if (!m) {
      out += " - | - | - | - | not measured |";
      continue;
    }
    const std::string ratio = ratio_cell(*m);
    out +=
        fmt::format(" {} | {} | {} | {} | {} |", mean_sd(m->base_mean, m->base_sd, m->n_base),
                    mean_sd(m->new_mean, m->new_sd, m->n_new), ratio, p_text(*m), verdict_cell(*m));
  }
  return out + "\n";
}

std::string points_table(const Comparison& c) {
  const std::vector<Metric>& metrics = c.options.metrics;
  std::string out = "| model | quant | threads | n_ubatch | type_k/v | fa | N_KV |";
  for (Metric m : metrics) {
    out += fmt::format(" base {0} | new {0} | ratio [95% CI] | p | {0} verdict |", metric_label(m));
  }
  out += "\n|---|---|---:|---:|---|---|---:|";
  for (size_t i = 0; i < metrics.size(); ++i) out += "---:|---:|---:|---:|---|";
  out += "\n";
  for (const auto& pc : c.points) out += point_row(pc, metrics);
  return out;
}

// The geometric mean ratio of each metric across the cells: the gate under
// --family geomean and geomean+holm, a summary otherwise.
std::string aggregate_lines(const Comparison& c) {
  std::string out;
  for (const Aggregate& a : c.aggregates)
    out += fmt::format(
        "\nGeometric mean over {} cell(s): {} {:.3f} [{:.3f}, {:.3f}], p {} (t test), MDE {}{}\n",
        a.cells, metric_label(a.metric), a.ratio, a.ratio_lo, a.ratio_hi,
        p_number(a.result.p_value), mde_percent(a.mde),
        c.options.family == Family::kGeomean || c.options.family == Family::kGeomeanHolm
            ? fmt::format(": {}", verdict_name(a.verdict))
            : "");
  return out;
}

// What was not compared: failed points, environment differences, duplicates.
void not_compared_sections(std::string& out, const Comparison& c) {
  for (const auto& [title, keys] :
       {std::pair{"Failed in base", &c.failed_base}, std::pair{"Failed in new", &c.failed_new}}) {
    if (keys->empty()) continue;
    out += fmt::format("\n### {} ({}), not compared\n\n", title, keys->size());
    for (const auto& k : *keys) out += fmt::format("- `{}`\n", k);
  }
  if (!c.environment_differences.empty()) {
    out += fmt::format("\n### Environment differences ({})\n\n", c.environment_differences.size());
    size_t shown = 0;
    for (const auto& d : c.environment_differences) {
      if (++shown > 25) {
        out += "- ... (all of them in --json)\n";
        break;
      }
      out += fmt::format("- `{}`\n", d);
    }
  }
  if (c.duplicates > 0) {
    out += fmt::format(
        "\n{} point(s) share their join key with an earlier point of the same run (measured "
        "again, or fields left out of the key); the last one was used.\n",
        c.duplicates);
  }
}

}  // namespace

std::string comparison_markdown(const Comparison& c) {
  std::string out = header_lines(c) + points_table(c);
  out += fmt::format("\n**{} point(s) compared: {} real regression(s), {} real improvement(s).**\n",
                     c.points.size(), c.regressions, c.improvements);
  out += aggregate_lines(c);
  out += fmt::format("\n**Gate: {}.**\n", c.gate.line);
  if (c.points.empty()) out += "\nNo point is in both runs under this join key.\n";
  unmatched_section(out, "Only in base", c.only_in_base, "new");
  unmatched_section(out, "Only in new", c.only_in_new, "base");
  if (!c.only_in_base.empty() || !c.only_in_new.empty()) {
    out +=
        "\nKeys must match exactly. If a difference above is expected (e.g. the model name of "
        "a twin against a published table), repeat with `--ignore FIELD,...`.\n";
  }
  not_compared_sections(out, c);
  return out;
}

}  // namespace moesweep
