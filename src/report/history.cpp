#include "report/history.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <tuple>

#include "results/count_compare.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

// What one metric reads from a record: its samples (wall) or its count.
struct MetricRow {
  const char* name;
  const char* unit;
  bool counts;
  const PhaseResult Record::*phase;
  const char* field;  // counts: the per-token field; "" for the phase's speeds
  double build_spread;
};

const std::vector<MetricRow>& metric_rows() {
  static const std::vector<MetricRow> rows = [] {
    std::vector<MetricRow> r = {{"S_PP", "t/s", false, &Record::pp, "", 0},
                                {"S_TG", "t/s", false, &Record::tg, "", 0}};
    for (const char* name : {"instructions", "ll_misses", "dram_bytes"})
      for (const auto& m : count_metrics())
        if (std::string(m.name) == name) {
          r.push_back({"PP", "per token", true, &Record::pp, m.field, m.tolerance});
          r.push_back({"TG", "per token", true, &Record::tg, m.field, m.tolerance});
        }
    return r;
  }();
  return rows;
}

std::string metric_name(const MetricRow& m) {
  return m.counts ? fmt::format("{} {}", m.name, m.field) : m.name;
}

std::string cell_of(const PointParams& p) {
  return fmt::format("threads {}, N_KV {}", p.n_threads, p.n_kv);
}

// The value of `m` in `r`: its samples, or one count (empty when missing).
std::vector<double> values_of(const MetricRow& m, const Record& r) {
  const PhaseResult& phase = r.*(m.phase);
  if (!m.counts) return r.ok ? phase.tokens_per_s : std::vector<double>{};
  const nlohmann::json& c = phase.counters;
  if (!c.is_object() || !c.contains(m.field) || !c[m.field].is_number()) return {};
  return {c[m.field].get<double>()};
}

HistorySeries series_of(const MetricRow& m, const std::string& key, const std::string& cell,
                        const std::vector<std::map<std::string, const Record*>>& by_key,
                        const std::vector<HistoryEntry>& entries, const HistoryOptions& o) {
  HistorySeries s;
  s.cell = cell;
  std::vector<SeriesPoint> points;
  for (size_t e = 0; e < entries.size(); ++e) {
    const auto it = by_key[e].find(key);
    if (it == by_key[e].end()) continue;
    const std::vector<double> v = values_of(m, *it->second);
    if (v.empty() || (!m.counts && v.size() < 2)) continue;
    const Stats st = Stats::of(v);
    s.entries.push_back(e);
    s.value.push_back(st.mean);
    s.lo.push_back(st.mean - st.ci95);
    s.hi.push_back(st.mean + st.ci95);
    points.push_back({entries[e].label, v});
  }
  s.changes = m.counts ? count_change_points(points, {o.tolerance, m.build_spread})
                       : wall_change_points(points, o.wall);
  return s;
}

std::string number(double v) {
  return v >= 1000 ? fmt::format("{:.0f}", v) : fmt::format("{:.4g}", v);
}

// The entries none of whose points succeeded, with the first error.
std::vector<UnmeasuredEntry> unmeasured_of(const std::vector<HistoryEntry>& entries) {
  std::vector<UnmeasuredEntry> out;
  for (size_t e = 0; e < entries.size(); ++e) {
    std::string why;
    bool measured = false;
    for (const Record& r : entries[e].run.records) {
      measured = measured || r.ok;
      if (!r.ok && why.empty()) why = r.error;
    }
    if (!measured) out.push_back({e, why.empty() ? "no point was run" : why.substr(0, 300)});
  }
  return out;
}

bool is_unmeasured(const History& h, size_t e) {
  for (const UnmeasuredEntry& u : h.unmeasured)
    if (u.entry == e) return true;
  return false;
}

std::string axis_label(const History& h, size_t e) {
  std::string label = h.labels[e];
  for (char& c : label) c = c == '\n' ? ' ' : c;
  return label;
}

// One metric's table: a row per release, a column per cell.
std::string metric_table(const History& h, const HistoryMetric& m) {
  std::string out = fmt::format("### {} ({})\n\n| release |", m.name, m.unit);
  for (const HistorySeries& s : m.series) out += fmt::format(" {} |", s.cell);
  out += "\n|---|";
  for (size_t i = 0; i < m.series.size(); ++i) out += "--:|";
  out += "\n";
  for (size_t e = 0; e < h.labels.size(); ++e) {
    out += "| " + axis_label(h, e) + " |";
    for (const HistorySeries& s : m.series) {
      std::string v = is_unmeasured(h, e) ? "failed to measure" : "-";
      for (size_t i = 0; i < s.entries.size(); ++i)
        if (s.entries[i] == e)
          v = s.hi[i] > s.value[i] ? number(s.value[i]) + " ± " + number(s.hi[i] - s.value[i])
                                   : number(s.value[i]);
      out += " " + v + " |";
    }
    out += "\n";
  }
  return out + "\n";
}

}  // namespace

History history_of(const std::vector<HistoryEntry>& entries, const HistoryOptions& o) {
  if (entries.size() < 2)
    throw UserError(fmt::format("a history of {} release(s)", entries.size()),
                    "two or more releases (engines, or stored runs)",
                    "give more engines (--engines a,b,...) or a wider --releases range");
  History h;
  h.method = o.counts ? fmt::format(
                            "exact counts: every step between neighbouring releases "
                            "beyond {:g}% (interval: the spread of identical builds)",
                            100 * o.tolerance)
                      : fmt::format(
                            "E-divisive means (Matteson and James 2014, as Apache Otava) "
                            "on log speeds, split at release boundaries, each split "
                            "kept at p <= {:g} ({} permutations within repetitions) "
                            "and a step of {:g}% or more",
                            o.wall.alpha, o.wall.permutations, 100 * o.wall.min_step);
  h.unmeasured = unmeasured_of(entries);
  std::vector<std::map<std::string, const Record*>> by_key(entries.size());
  // Cells by threads, then depth, then key: the tables' columns in that order.
  std::map<std::tuple<int, int, std::string>, std::string> cells;
  for (size_t e = 0; e < entries.size(); ++e) {
    h.labels.push_back(entries[e].tag.empty() ? entries[e].label
                                              : entries[e].label + "\n" + entries[e].tag);
    for (const Record& r : entries[e].run.records) {
      const std::string key = r.params.key_string();
      if (by_key[e].emplace(key, &r).second)
        cells.emplace(std::tuple{r.params.n_threads, r.params.n_kv, key}, cell_of(r.params));
    }
  }
  for (const MetricRow& m : metric_rows()) {
    if (m.counts != o.counts) continue;
    HistoryMetric metric{metric_name(m), m.unit, {}};
    for (const auto& [at, cell] : cells) {
      HistorySeries s = series_of(m, std::get<2>(at), cell, by_key, entries, o);
      if (s.entries.size() >= 2) metric.series.push_back(std::move(s));
    }
    if (!metric.series.empty()) h.metrics.push_back(std::move(metric));
  }
  if (h.metrics.empty())
    throw UserError("no metric was measured on two or more of the releases",
                    o.counts ? "runs with --counters sim counts" : "runs with 2+ repetitions",
                    "see the run's tables.md for what failed");
  return h;
}

std::string history_markdown(const History& h, TableWidth width) {
  std::string out;
  for (const HistoryMetric& m : h.metrics) out += metric_table(h, m);
  if (!h.unmeasured.empty()) {
    out += "### Failed to measure\n\n" +
           fit("Every point of these releases failed: no result, so no regression either; the "
               "series and their change points skip them (a change point next to one spans it).",
               width) +
           "\n\n";
    for (const UnmeasuredEntry& u : h.unmeasured)
      out += fit(fmt::format("- {}: {}", axis_label(h, u.entry), u.why), width, "  ") + "\n";
    out += "\n";
  }
  out += "### Change points\n\n" + fit("Method: " + h.method + ".", width) + "\n\n";
  std::string rows;
  for (const HistoryMetric& m : h.metrics)
    for (const HistorySeries& s : m.series)
      for (const ChangePoint& c : s.changes)
        rows +=
            fmt::format("| {} | {} | {} -> {} | {:+.2f}% | [{:+.2f}%, {:+.2f}%] | {} |\n", m.name,
                        s.cell, c.before, c.after, 100 * c.step, 100 * c.step_lo, 100 * c.step_hi,
                        c.p_value > 0 ? fmt::format("{:.3g}", c.p_value) : "-");
  if (rows.empty()) return out + "None found.\n";
  return out +
         "| metric | cell | between | step | 95% interval | p |\n|---|---|---|--:|---|--:|\n" +
         rows;
}

nlohmann::json history_plot_data(const History& h) {
  nlohmann::json figures = nlohmann::json::array();
  for (const HistoryMetric& m : h.metrics) {
    nlohmann::json f = {{"title", m.name},
                        {"ylabel", m.name + " (" + m.unit + ")"},
                        {"x_labels", h.labels},
                        {"series", nlohmann::json::array()},
                        {"changes", nlohmann::json::array()}};
    std::string file = "history_" + m.name + ".png";
    for (char& c : file) c = c == ' ' ? '_' : c;
    f["file"] = file;
    for (const HistorySeries& s : m.series) {
      f["series"].push_back(
          {{"label", s.cell}, {"x", s.entries}, {"y", s.value}, {"lo", s.lo}, {"hi", s.hi}});
      for (const ChangePoint& c : s.changes)
        f["changes"].push_back({{"x", s.entries[c.index] - 0.5},
                                {"label", fmt::format("{}: {:+.1f}%", s.cell, 100 * c.step)}});
    }
    figures.push_back(f);
  }
  return figures;
}

}  // namespace moesweep
