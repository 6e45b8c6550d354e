// compare's table for a terminal (issue 48): the figures a person decides on,
// within 120 columns. Every column (means, p values) is in the wide table:
// compare --wide, compare.md, --json.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "results/compare_format.hpp"
#include "results/point_fields.hpp"
#include "util/markdown_table.hpp"
#include "util/terminal_text.hpp"

namespace moesweep {
namespace {

bool joined_on(const Comparison& c, const PointField& f) {
  return f.key && !c.options.ignore.count(f.key);
}

// threads_batch that follows threads in every point says nothing more.
bool batch_threads_follow(const Comparison& c) {
  for (const PointComparison& pc : c.points)
    if (pc.params.n_threads_batch != pc.params.n_threads) return false;
  return true;
}

// Key fields whose values differ between the compared points: the rows'
// first columns. The others are the same in every row, said once above.
std::vector<const PointField*> varying_fields(const Comparison& c) {
  std::vector<const PointField*> out;
  const bool batch_follows = batch_threads_follow(c);
  for (const PointField& f : point_fields()) {
    if (!joined_on(c, f)) continue;
    if (batch_follows && f.member == FieldMember(&PointParams::n_threads_batch)) continue;
    std::set<std::string> values;
    for (const PointComparison& pc : c.points) values.insert(field_label(f, pc.params));
    if (values.size() > 1) out.push_back(&f);
  }
  return out;
}

std::string shared_fields_line(const Comparison& c, const std::vector<const PointField*>& varying) {
  const PointParams& p = c.points.front().params;
  std::vector<std::string> parts;
  for (const PointField& f : point_fields()) {
    if (!joined_on(c, f) || !f.label || field_is_blank(f, p)) continue;
    if (std::find(varying.begin(), varying.end(), &f) != varying.end()) continue;
    if (f.threads_axis || f.member == FieldMember(&PointParams::n_threads_batch)) continue;
    parts.push_back(fmt::format("{} {}", f.label, field_label(f, p)));
  }
  if (parts.empty()) return "";
  return wrap_words(fmt::format("Every point: {}.", fmt::join(parts, ", "))) + "\n\n";
}

const MetricComparison* metric_of(const PointComparison& pc, Metric want) {
  for (const MetricComparison& m : pc.metrics)
    if (m.metric == want) return &m;
  return nullptr;
}

}  // namespace

std::string compact_points_table(const Comparison& c) {
  if (c.points.empty()) return "";
  const std::vector<const PointField*> varying = varying_fields(c);
  std::vector<std::string> header;
  for (const PointField* f : varying)
    header.push_back(f->key == std::string("n_kv") ? "N_KV" : f->label ? f->label : f->key);
  for (Metric m : c.options.metrics) {
    header.push_back(fmt::format("{} new/base [95% CI]", metric_label(m)));
    header.push_back("MDE");
    header.push_back(metric_label(m));
  }
  MarkdownTable t(header);
  for (const PointComparison& pc : c.points) {
    std::vector<std::string> row;
    for (const PointField* f : varying) row.push_back(field_label(*f, pc.params));
    for (Metric want : c.options.metrics) {
      const MetricComparison* m = metric_of(pc, want);
      row.push_back(m ? compact_ratio_cell(*m) : "-");
      row.push_back(m ? mde_percent(m->mde) : "-");
      row.push_back(!m                                   ? "not measured"
                    : m->verdict == Verdict::kRegression ? "**REGRESSION**"
                                                         : verdict_name(m->verdict));
    }
    t.add_row(row);
  }
  return shared_fields_line(c, varying) + t.render() +
         "\n(means, p values and every key field: compare --wide, or --json)\n";
}

}  // namespace moesweep
