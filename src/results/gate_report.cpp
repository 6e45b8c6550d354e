#include "results/gate_report.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "results/compare_format.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

std::string cell_name(const PointParams& p) {
  return fmt::format("threads {}, N_KV {}", p.n_threads, p.n_kv);
}

// Short names where they tell the cells apart; the full key where they do not.
void make_names_unique(std::vector<GateCase>& cases, const std::vector<std::string>& keys) {
  std::map<std::string, int> seen;
  for (const GateCase& c : cases) ++seen[c.metric + "\n" + c.cell];
  for (size_t i = 0; i < cases.size(); ++i)
    if (seen[cases[i].metric + "\n" + cases[i].cell] > 1 && !keys[i].empty())
      cases[i].cell += " (" + keys[i] + ")";
}

CaseResult result_of(Verdict v) {
  if (v == Verdict::kRegression) return CaseResult::kFailure;
  if (v == Verdict::kInconclusive || v == Verdict::kUntestable) return CaseResult::kSkipped;
  return CaseResult::kPass;
}

std::string interval(double lo, double hi) {
  return hi > 0 ? fmt::format("[{:.3f}, {:.3f}]", lo, hi) : "-";
}

GateCase wall_case(const MetricComparison& m, const std::string& cell, double threshold) {
  GateCase g;
  g.metric = metric_label(m.metric);
  g.cell = cell;
  g.result = result_of(m.verdict);
  g.ratio = m.n_base > 0 && m.n_new > 0 ? fmt::format("{:.3f}", m.ratio) : "-";
  g.ci = interval(m.ratio_lo, m.ratio_hi);
  g.limit = "MDE " + mde_percent(m.mde);
  g.detail =
      fmt::format("{}: new/base {} {} (p {:.3g}, {}), {}; threshold {:g}%", verdict_name(m.verdict),
                  g.ratio, g.ci, m.p_family, test_kind_name(m.test), g.limit, 100 * threshold);
  return g;
}

GateCase aggregate_case(const Aggregate& a, double threshold) {
  GateCase g;
  g.metric = metric_label(a.metric);
  g.cell = fmt::format("geometric mean over {} cell(s)", a.cells);
  g.result = result_of(a.verdict);
  g.ratio = fmt::format("{:.3f}", a.ratio);
  g.ci = interval(a.ratio_lo, a.ratio_hi);
  g.limit = "MDE " + mde_percent(a.mde);
  g.detail = fmt::format("{}: new/base {} {} (p {:.3g}, t test), {}; threshold {:g}%",
                         verdict_name(a.verdict), g.ratio, g.ci, a.result.p_value, g.limit,
                         100 * threshold);
  return g;
}

std::string failed_rows(const GateReport& r, CaseResult which) {
  std::string out;
  for (const GateCase& c : r.cases)
    if (c.result == which)
      out += fmt::format("| {} | {} | {} | {} | {} |\n", c.cell, c.metric, c.ratio, c.ci, c.limit);
  return out;
}

}  // namespace

GateReport gate_report_of(const Comparison& c) {
  GateReport r;
  r.base = c.base_label;
  r.fresh = c.new_label;
  r.what = "wall time";
  r.exit_code = gate_exit_code(c.gate);
  r.line = c.gate.line;
  std::vector<std::string> keys;
  for (const Aggregate& a : c.aggregates) {
    r.cases.push_back(aggregate_case(a, c.options.threshold));
    keys.push_back("");
  }
  for (const PointComparison& pc : c.points)
    for (const MetricComparison& m : pc.metrics) {
      r.cases.push_back(wall_case(m, cell_name(pc.params), c.options.threshold));
      keys.push_back(pc.key);
    }
  make_names_unique(r.cases, keys);
  return r;
}

GateReport gate_report_of(const CountComparison& c) {
  GateReport r;
  r.base = c.base_label;
  r.fresh = c.new_label;
  r.what = "counts per token (--counters sim)";
  r.exit_code = c.exit_status();
  r.line = c.more > 0 ? fmt::format("{} count(s) grew beyond their tolerance per token", c.more)
           : r.exit_code == exit_code::kOk
               ? fmt::format("no count grew beyond its tolerance in {} comparison(s)", c.compared)
               : fmt::format("inconclusive: {} count(s) and {} point(s) on one side only",
                             c.missing, c.only_in_base.size() + c.only_in_new.size());
  std::vector<std::string> keys;
  for (const CountPoint& p : c.points)
    for (const CountCell& cell : p.cells) {
      GateCase g;
      g.metric = cell.phase + "." + cell.metric;
      g.cell = cell_name(p.params);
      const bool missing = cell.verdict == CountVerdict::kMissing;
      g.result = cell.verdict == CountVerdict::kMore ? CaseResult::kFailure
                 : missing                           ? CaseResult::kSkipped
                                                     : CaseResult::kPass;
      g.ratio = missing ? "-" : fmt::format("{:.6f}", cell.ratio);
      g.ci = missing ? "-" : "exact";
      g.limit = fmt::format("tolerance {:.3g}%", 100 * cell.tolerance);
      g.detail = missing ? fmt::format("missing: {}", cell.why)
                         : fmt::format("{}: {:+.4f}% per token (base {:.0f}, new {:.0f}), {}",
                                       count_verdict_name(cell.verdict), 100 * (cell.ratio - 1),
                                       cell.base, cell.fresh, g.limit);
      r.cases.push_back(std::move(g));
      keys.push_back(p.key);
    }
  make_names_unique(r.cases, keys);
  return r;
}

const char* gate_outcome_word(int exit_code) {
  switch (exit_code) {
    case exit_code::kOk:
      return "pass";
    case exit_code::kRegression:
      return "regression";
    case exit_code::kInconclusive:
      return "inconclusive";
  }
  return "error";
}

std::string gate_markdown(const GateReport& r) {
  int failed = 0, skipped = 0;
  for (const GateCase& c : r.cases) {
    failed += c.result == CaseResult::kFailure;
    skipped += c.result == CaseResult::kSkipped;
  }
  std::string out = fmt::format(
      "### moesweep gate: **{}** (exit {})\n\n`{}` -> `{}`, {}: {} case(s), {} failed, {} could "
      "not tell; {:.0f} s.\n\n**Gate: {}.**\n",
      gate_outcome_word(r.exit_code), r.exit_code, r.base, r.fresh, r.what, r.cases.size(), failed,
      skipped, r.seconds, r.line);
  const char* header =
      "| cell | metric | new / base | 95% CI | could see |\n|---|---|--:|---|---|\n";
  if (failed > 0)
    out +=
        fmt::format("\nFailed ({}):\n\n{}{}", failed, header, failed_rows(r, CaseResult::kFailure));
  if (skipped > 0 && r.exit_code != exit_code::kOk)
    out += fmt::format("\nCould not tell ({}):\n\n{}{}", skipped, header,
                       failed_rows(r, CaseResult::kSkipped));
  if (!r.run_dir.empty())
    out += fmt::format("\nRun and full report: `{}` (compare.md, junit.xml).\n", r.run_dir);
  return out;
}

std::string xml_escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 && c != '\t' && c != '\n' && c != '\r') continue;
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string gate_junit_xml(const GateReport& r) {
  int failures = 0, skipped = 0;
  std::string cases;
  for (const GateCase& c : r.cases) {
    cases += fmt::format("    <testcase classname=\"moesweep.gate.{}\" name=\"{}\" time=\"0\"",
                         xml_escaped(c.metric), xml_escaped(c.cell));
    if (c.result == CaseResult::kPass) {
      cases += "/>\n";
      continue;
    }
    const bool failure = c.result == CaseResult::kFailure;
    failures += failure;
    skipped += !failure;
    cases += fmt::format(">\n      <{} message=\"{}\"{}/>\n    </testcase>\n",
                         failure ? "failure" : "skipped", xml_escaped(c.detail),
                         failure ? " type=\"regression\"" : "");
  }
  const std::string suite = xml_escaped(fmt::format("moesweep gate: {} -> {}", r.base, r.fresh));
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<testsuites name=\"moesweep gate\" tests=\"{0}\" failures=\"{1}\" errors=\"0\" "
      "time=\"{3:.1f}\">\n"
      "  <testsuite name=\"{4}\" tests=\"{0}\" failures=\"{1}\" errors=\"0\" skipped=\"{2}\" "
      "time=\"{3:.1f}\">\n"
      "    <properties>\n"
      "      <property name=\"verdict\" value=\"{5}\"/>\n"
      "      <property name=\"gate\" value=\"{6}\"/>\n"
      "    </properties>\n{7}  </testsuite>\n</testsuites>\n",
      r.cases.size(), failures, skipped, r.seconds, suite, gate_outcome_word(r.exit_code),
      xml_escaped(r.line), cases);
}

}  // namespace moesweep
