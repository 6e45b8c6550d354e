#include "results/compare_format.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "util/terminal_text.hpp"

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
                       const std::string& other, TableWidth width) {
  if (list.empty()) return;
  out += fmt::format("\n### {} ({}), not compared\n\n", title, list.size());
  if (width == TableWidth::kWide) {
    for (const auto& u : list) {
      out += fmt::format("- `{}`\n", u.key);
      if (!u.closest_other.empty())
        out += fmt::format("  - nearest in {}: differs in {}\n", other, u.differences);
    }
    return;
  }
  // A terminal: the points grouped by what tells them from their nearest (a
  // whole key is hundreds of columns; --wide and --json list every key).
  std::vector<std::pair<std::string, int>> groups;
  for (const auto& u : list) {
    const std::string what = u.closest_other.empty() ? "" : u.differences;
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == what; });
    if (it == groups.end())
      groups.emplace_back(what, 1);
    else
      ++it->second;
  }
  for (const auto& [what, count] : groups)
    out +=
        wrap_words(what.empty() ? fmt::format("- {} point(s), nothing in {} to match", count, other)
                                : fmt::format("- {} point(s); the nearest in {} differs in {}",
                                              count, other, what),
                   kTerminalWidth, "  ") +
        "\n";
  out += "- (their keys: --wide or --json)\n";
}

// First thing a reader sees: whether the two runs are of one machine class.
std::string machine_class_lines(const Comparison& c, TableWidth width) {
  const std::string base_id = machine_class_id(c.base_machine);
  const std::string new_id = machine_class_id(c.new_machine);
  if (!c.machine_differences.empty()) {
    std::string what;
    for (const auto& d : c.machine_differences) what += (what.empty() ? "" : "; ") + d;
    return fit(fmt::format(
                   "**Environment change allowed (--allow-environment-change): base and new were "
                   "measured on different machine classes (`{}` -> `{}`): {}. The differences "
                   "below "
                   "include the machine's, not only the code's.**",
                   base_id, new_id, what),
               width) +
           "\n\n";
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

// "- name: text", wrapped for a terminal, later lines indented under the text.
std::string legend_item(const std::string& text, TableWidth width) {
  return fit("- " + text, width, "  ") + "\n";
}

// Which engines each side holds, and the engine fields the join left out.
std::string engine_lines(const Comparison& c, TableWidth width) {
  std::string out;
  if (c.base_engine == c.new_engine && !c.base_engine.empty())
    out = fmt::format("Engine: {} (both).", c.base_engine);
  else if (!c.base_engine.empty() || !c.new_engine.empty())
    out = fmt::format("Engines compared: base {} -> new {}.",
                      c.base_engine.empty() ? "(not recorded)" : c.base_engine,
                      c.new_engine.empty() ? "(not recorded)" : c.new_engine);
  if (!out.empty()) out = fit(out, width) + "\n\n";
  if (!c.engine_fields_joined.empty())
    out += fit(fmt::format(
                   "Each side holds one engine ({} and {}), so the points are joined without `{}`.",
                   c.base_engine_name.empty() ? "default" : c.base_engine_name,
                   c.new_engine_name.empty() ? "default" : c.new_engine_name,
                   fmt::join(c.engine_fields_joined, "`, `")),
               width) +
           "\n\n";
  return out;
}

// The header: what a real regression is, and the fields left out of the join.
std::string header_lines(const Comparison& c, TableWidth width) {
  const CompareOptions& o = c.options;
  std::string out = fmt::format("## moesweep compare: {} -> {}\n\n", c.base_label, c.new_label);
  out += machine_class_lines(c, width);
  out += engine_lines(c, width);
  out += legend_item(fmt::format("Real regression: two-sided p < {} ({}) and the ratio's 95% CI "
                                 "reaching {:g}% below base.",
                                 o.alpha, family_text(c), o.threshold * 100),
                     width);
  out += legend_item(
      fmt::format(
          "Test: {}{}, on the kept samples (tokens/s per repetition). Ratio: new / base{}.",
          test_kind_name(o.test),
          c.paired ? " (the two sides are engines of one run: their repetitions are pairs)" : "",
          c.paired ? " (paired: the geometric mean of the pairs' ratios)" : ""),
      width);
  out += legend_item(fmt::format("MDE: the smallest slowdown the cell would detect with 90% power "
                                 "at the alpha its verdict "
                                 "faces{}.",
                                 o.family == Family::kHolm ? " (alpha / tests under Holm)"
                                 : o.family == Family::kGeomeanHolm
                                     ? " (alpha / 2 / tests for a cell under geomean+holm)"
                                     : ""),
                     width);
  out += legend_item(
      fmt::format(
          "noise: not significant, the MDE within {0:g}%; inconclusive: not significant, the MDE "
          "beyond {0:g}%.",
          o.threshold * 100),
      width);
  out += legend_item("`?`: the change the cell reports is smaller than its MDE (unable to tell).",
                     width);
  out += "\n";
  std::vector<std::string> asked;
  for (const auto& f : o.ignore)
    if (std::find(c.engine_fields_joined.begin(), c.engine_fields_joined.end(), f) ==
        c.engine_fields_joined.end())
      asked.push_back(f);
  if (!asked.empty())
    out += fit(fmt::format("Key fields ignored for the join: {}.", fmt::join(asked, ", ")), width) +
           "\n\n";
  return out;
}

}  // namespace

namespace {

// The ratio and its 95% CI, then `mde` (", MDE 19%" or ""), then `?` where the
// cell is unable to tell; "-" where there is no finite ratio.
std::string ratio_text(const MetricComparison& m, const std::string& mde) {
  if (m.n_base == 0 || m.n_new == 0 || !std::isfinite(m.ratio)) return "-";
  if (m.ratio_hi <= 0 || !std::isfinite(m.ratio_lo) || !std::isfinite(m.ratio_hi))
    return fmt::format("{:.3f}", m.ratio);
  return fmt::format("{:.3f} [{:.3f}, {:.3f}]{}{}", m.ratio, m.ratio_lo, m.ratio_hi, mde,
                     unable_to_tell(m) ? " ?" : "");
}

}  // namespace

std::string ratio_cell(const MetricComparison& m) {
  return ratio_text(m, ", MDE " + mde_percent(m.mde));
}

std::string compact_ratio_cell(const MetricComparison& m) {
  return ratio_text(m, "");
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

// Failed points: their keys (wide), or how many (a terminal; --wide lists them).
void failed_sections(std::string& out, const Comparison& c, TableWidth width) {
  for (const auto& [title, keys] :
       {std::pair{"Failed in base", &c.failed_base}, std::pair{"Failed in new", &c.failed_new}}) {
    if (keys->empty()) continue;
    out += fmt::format("\n### {} ({}), not compared\n\n", title, keys->size());
    if (width == TableWidth::kCompact) {
      out += "- (their keys: --wide or --json)\n";
      continue;
    }
    for (const auto& k : *keys) out += fmt::format("- `{}`\n", k);
  }
}

// What was not compared: failed points, environment differences, duplicates.
void not_compared_sections(std::string& out, const Comparison& c, TableWidth width) {
  failed_sections(out, c, width);
  if (!c.environment_differences.empty()) {
    out += fmt::format("\n### Environment differences ({})\n\n", c.environment_differences.size());
    size_t shown = 0;
    for (const auto& d : c.environment_differences) {
      if (++shown > 25) {
        out += "- ... (all of them in --json)\n";
        break;
      }
      out += fit(fmt::format("- `{}`", d), width, "  ") + "\n";
    }
  }
  if (c.duplicates > 0) {
    (out += '\n') +=
        fit(fmt::format(
                "{} point(s) share their join key with an earlier point of the same run (measured "
                "again, or fields left out of the key); the last one was used.",
                c.duplicates),
            width) +
        "\n";
  }
}

}  // namespace

std::string comparison_markdown(const Comparison& c, TableWidth width) {
  std::string out = header_lines(c, width);
  out += width == TableWidth::kWide ? points_table(c) : compact_points_table(c);
  out += fmt::format("\n**{} point(s) compared: {} real regression(s), {} real improvement(s).**\n",
                     c.points.size(), c.regressions, c.improvements);
  out += aggregate_lines(c);
  (out += '\n') += fit(fmt::format("**Gate: {}.**", c.gate.line), width) + "\n";
  if (c.points.empty()) out += "\nNo point is in both runs under this join key.\n";
  unmatched_section(out, "Only in base", c.only_in_base, "new", width);
  unmatched_section(out, "Only in new", c.only_in_new, "base", width);
  if (!c.only_in_base.empty() || !c.only_in_new.empty()) {
    (out += '\n') +=
        fit("Keys must match exactly. If a difference above is expected (e.g. the model name of a "
            "twin against a published table), repeat with `--ignore FIELD,...`.",
            width) +
        "\n";
  }
  not_compared_sections(out, c, width);
  return out;
}

}  // namespace moesweep
