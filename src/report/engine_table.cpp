#include "report/engine_table.hpp"

#include <fmt/format.h>

#include <set>

#include "results/compare.hpp"
#include "results/compare_format.hpp"
#include "results/engine_sides.hpp"
#include "results/point_fields.hpp"
#include "util/markdown_table.hpp"
#include "util/terminal_text.hpp"

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

std::string cell_of(const PointField& f, const PointParams& p, TableWidth width) {
  if (width == TableWidth::kCompact && f.threads_axis && p.n_threads_batch != p.n_threads)
    return fmt::format("{}/{}", p.n_threads, p.n_threads_batch);
  return field_label(f, p);
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

// kWide: both means, the ratio with its CI and MDE, the verdict; kCompact:
// the ratio with its CI, the MDE, the verdict (the means are in tables.md).
void add_metric_cells(std::vector<std::string>& row, const PointComparison& pc, Metric metric,
                      TableWidth width) {
  for (const MetricComparison& m : pc.metrics) {
    if (m.metric != metric) continue;
    if (width == TableWidth::kWide)
      row.insert(row.end(), {fmt::format("{:.2f}", m.base_mean), fmt::format("{:.2f}", m.new_mean),
                             ratio_cell(m)});
    else
      row.insert(row.end(), {compact_ratio_cell(m), mde_percent(m.mde)});
    row.push_back(verdict_mark(m.verdict));
    return;
  }
  row.insert(row.end(), width == TableWidth::kWide ? 4 : 3, "-");
}

std::vector<std::string> pair_header(const std::vector<const PointField*>& fields,
                                     const std::string& a, const std::string& b, TableWidth width) {
  std::vector<std::string> header;
  for (const PointField* f : fields)
    header.push_back(f->key && std::string(f->key) == "n_kv" ? "N_KV" : f->label);
  for (const char* metric : {"S_PP", "S_TG"}) {
    if (width == TableWidth::kWide)
      header.insert(header.end(), {fmt::format("{} {}", metric, a), fmt::format("{} {}", metric, b),
                                   fmt::format("{}/{} [95% CI], MDE", b, a)});
    else  // the names are in the title ("b against a"): long ones would widen every row
      header.insert(header.end(), {fmt::format("{} new/base [95% CI]", metric), "MDE"});
    header.push_back("verdict");
  }
  return header;
}

// What the marks mean, one line each.
std::string pair_legend(const Comparison& c, TableWidth width) {
  const double pct = 100 * c.options.threshold;
  const bool both = c.options.family == Family::kGeomeanHolm;  // CompareOptions' default
  std::string out =
      fit(fmt::format(
              "{} over the {} cell test(s) under Holm's control at alpha {}{}.",
              c.paired ? "Paired t on the pairs of repetitions (the engines took turns)"
                       : "Welch t below 4 samples a side, Mann-Whitney U from 4",
              c.gate.tests, both ? c.options.alpha / 2 : c.options.alpha,
              both ? ", the other half of alpha on the geometric mean ratio per metric (the last "
                     "line)"
                   : ""),
          width) +
      "\n";
  for (const std::string& line :
       {fmt::format("- slower/faster: significant, the 95% CI reaching {:g}%; small: significant, "
                    "the CI short of it.",
                    pct),
        fmt::format("- ~: not significant, the MDE (the smallest change the cell would detect with "
                    "90% power) within {:g}%.",
                    pct),
        fmt::format("- can't tell: not significant, the MDE beyond {:g}%.", pct),
        std::string("- `?`: the change the ratio reports is smaller than its MDE."),
        std::string("- n/a: under 2 samples on a side (llama-sweep-bench times each depth once).")})
    out += fit(line, width, "  ") + "\n";
  return out + "\n";
}

std::string pair_table(const LoadedRun& run, const std::string& a, const std::string& b,
                       TableWidth width) {
  const Comparison c = compare_runs(engine_side(run, a), engine_side(run, b), CompareOptions{});
  std::vector<const PointField*> fields = varying_fields(c);
  if (width == TableWidth::kCompact)  // threads_batch goes into the threads cell ("1/2")
    std::erase_if(fields, [](const PointField* f) {
      return f->member == FieldMember(&PointParams::n_threads_batch);
    });
  MarkdownTable table(pair_header(fields, a, b, width));
  for (const PointComparison& pc : c.points) {
    std::vector<std::string> row;
    for (const PointField* f : fields) row.push_back(cell_of(*f, pc.params, width));
    add_metric_cells(row, pc, Metric::kPp, width);
    add_metric_cells(row, pc, Metric::kTg, width);
    table.add_row(std::move(row));
  }
  std::string out = fmt::format("### {} against {}\n\n", b, a);
  // One line per engine build (a Markdown list); one when both say the same.
  out += "- " + c.base_engine + "\n";
  if (c.new_engine != c.base_engine) out += "- " + c.new_engine + "\n";
  (out += '\n') += pair_legend(c, width);
  return out + table.render() + "\n" + fit(fmt::format("{}: {}.", b, c.gate.line), width) + "\n\n";
}

}  // namespace

std::string engines_side_by_side(const std::vector<Record>& records, TableWidth width) {
  LoadedRun run;
  run.label = "run";
  run.records = records;
  const std::vector<std::string> names = engines_in(run);
  if (names.size() < 2) return "";
  std::string out;
  for (size_t i = 1; i < names.size(); ++i) out += pair_table(run, names[0], names[i], width);
  return out;
}

}  // namespace moesweep
