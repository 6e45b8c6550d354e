#pragma once
// A performance history (moesweep history, issue 45): the same twin and
// settings measured on each release in order (one interleaved sweep of
// every engine, or the runs of a baseline class), read per metric and cell,
// with the change points of each series (results/change_points.hpp). Pure:
// the runs come in loaded; Markdown and the plot's data go out.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "results/change_points.hpp"
#include "results/run_source.hpp"
#include "util/terminal_text.hpp"

namespace moesweep {

struct HistoryEntry {
  std::string label;  // the release as the axis names it: "3.21.1", an engine, a run id
  std::string tag;    // its llama.cpp tag, "" when unknown
  LoadedRun run;      // its records (one engine's side of a sweep, or one stored run)
};

struct HistoryOptions {
  bool counts = false;       // --counters sim runs: per-token counts instead of speeds
  double tolerance = 0.005;  // counts: a step beyond it is a change point
  EDivisiveOptions wall;     // wall time: E-divisive's alpha and permutations
};

// One series: a metric in one cell (a point of the plan) across the releases.
struct HistorySeries {
  std::string cell;                   // "threads 1, N_KV 256"
  std::vector<size_t> entries;        // the entries that measured it (indexes)
  std::vector<double> value, lo, hi;  // mean and 95% CI (counts: lo = hi = value)
  std::vector<ChangePoint> changes;   // indexes into `entries`' order
};

struct HistoryMetric {
  std::string name;  // "S_TG", "TG instructions per token"
  std::string unit;  // "t/s", "per token"
  std::vector<HistorySeries> series;
};

// A release that was run but gave no result: every point failed (a worker
// that aborts, as llama.cpp b5590 and b5640 do in ggml's repack code at
// decode). It is no regression: its series skip it, and it is said.
struct UnmeasuredEntry {
  size_t entry = 0;
  std::string why;  // the first failed point's error
};

struct History {
  std::vector<std::string> labels;  // the axis: label and tag of each entry
  std::vector<HistoryMetric> metrics;
  std::vector<UnmeasuredEntry> unmeasured;
  std::string method;  // how its change points were found, in words
};

// UserError (exit 2) for fewer than two entries or none with a metric.
History history_of(const std::vector<HistoryEntry>& entries, const HistoryOptions& options);
// history.md, or (kCompact) the same with its prose wrapped for a terminal.
std::string history_markdown(const History& h, TableWidth width = TableWidth::kWide);
// plot_data.json's "history" list: one figure per metric (scripts/plot).
nlohmann::json history_plot_data(const History& h);

}  // namespace moesweep
