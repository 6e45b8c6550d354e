#include "report/engine_table.hpp"

#include <fmt/format.h>

#include <set>

#include "report/markdown_table.hpp"
#include "results/compare.hpp"
#include "results/compare_format.hpp"
#include "results/engine_sides.hpp"
#include "results/point_fields.hpp"

namespace moesweep {
namespace {

// The label fields whose values differ between the compared points (N_KV
// always): the columns that tell the rows apart.
std::vector<const PointField*> varying_fields(const Comparison& c) {
  std::vector<const PointField*> out;
  for (const PointField& f : point_fields()) {
    if (!f.label && !f.cell) continue;
    if (f.key && std::string(f.key) == "n_kv") {
      out.push_back(&f);
      continue;
    }
    std::set<std::string> values;
    for (const PointComparison& pc : c.points) values.insert(field_text(f, pc.params));
    if (values.size() > 1) out.push_back(&f);
  }
  return out;
}

const char* verdict_mark(Verdict v) {
  switch (v) {
    case Verdict::kRegression:
      return "slower";
    case Verdict::kImprovement:
      return "faster";
    case Verdict::kSmall:
      return "small";
    case Verdict::kNoise:
      return "~";
    case Verdict::kInconclusive:
      return "can't tell";
    case Verdict::kUntestable:
      return "n/a";
  }
  return "";
}

void add_metric_cells(std::vector<std::string>& row, const PointComparison& pc, Metric metric) {
  for (const MetricComparison& m : pc.metrics) {
    if (m.metric != metric) continue;
    row.push_back(fmt::format("{:.2f}", m.base_mean));
    row.push_back(fmt::format("{:.2f}", m.new_mean));
    row.push_back(ratio_cell(m));
    row.push_back(verdict_mark(m.verdict));
    return;
  }
  row.insert(row.end(), {"-", "-", "-", "-"});
}

std::string pair_table(const LoadedRun& run, const std::string& a, const std::string& b) {
  const Comparison c = compare_runs(engine_side(run, a), engine_side(run, b), CompareOptions{});
  const std::vector<const PointField*> fields = varying_fields(c);
  std::vector<std::string> header;
  for (const PointField* f : fields)
    header.push_back(f->key && std::string(f->key) == "n_kv" ? "N_KV" : f->label);
  for (const char* metric : {"S_PP", "S_TG"})
    header.insert(header.end(), {fmt::format("{} {}", metric, a), fmt::format("{} {}", metric, b),
                                 fmt::format("{}/{} [95% CI], MDE", b, a), "verdict"});
  MarkdownTable table(header);
  for (const PointComparison& pc : c.points) {
    std::vector<std::string> row;
    for (const PointField* f : fields) row.push_back(field_label(*f, pc.params));
    add_metric_cells(row, pc, Metric::kPp);
    add_metric_cells(row, pc, Metric::kTg);
    table.add_row(std::move(row));
  }
  std::string out = fmt::format("### {} against {}\n\n", b, a);
  // One line per engine build (a Markdown list); one when both say the same.
  out += "- " + c.base_engine + "\n";
  if (c.new_engine != c.base_engine) out += "- " + c.new_engine + "\n";
  const double pct = 100 * c.options.threshold;
  const bool both = c.options.family == Family::kGeomeanHolm;  // CompareOptions' default
  out += fmt::format(
      "\nt/s means; {} over the {} cell test(s) under Holm's control at alpha {}{} (slower/faster: "
      "significant, the 95% CI reaching {:g}%; small: significant, the CI short of it; ~: not "
      "significant, and the MDE, the smallest change the cell would detect with 90% power, within "
      "{:g}%; can't tell: not significant with the MDE beyond {:g}%; `?`: the change the ratio "
      "reports is smaller than its MDE; n/a: under 2 samples on a side, as from llama-sweep-bench, "
      "which times each depth once).\n\n",
      c.paired ? "paired t on the pairs of repetitions (the engines took turns)"
               : "Welch t below 4 samples a side, Mann-Whitney U from 4",
      c.gate.tests, both ? c.options.alpha / 2 : c.options.alpha,
      both ? ", the other half of alpha on the geometric mean ratio per metric (the last line)"
           : "",
      pct, pct, pct);
  return out + table.render() + fmt::format("\n{}: {}.\n\n", b, c.gate.line);
}

}  // namespace

std::string engines_side_by_side(const std::vector<Record>& records) {
  LoadedRun run;
  run.label = "run";
  run.records = records;
  const std::vector<std::string> names = engines_in(run);
  if (names.size() < 2) return "";
  std::string out;
  for (size_t i = 1; i < names.size(); ++i) out += pair_table(run, names[0], names[i]);
  return out;
}

}  // namespace moesweep
