#pragma once
// The tables people compare with published ones: sweep-bench's PP/TG/N_KV
// table (exact columns, ours after them) per configuration, and the seeds'
// threads table (threads | PP t/s | TG t/s, mean ± sd) per depth.
#include <string>
#include <vector>

#include "report/sweet_spot.hpp"
#include "results/point_fields.hpp"
#include "results/record.hpp"
#include "util/terminal_text.hpp"

namespace moesweep {

// Configuration label: the parameters a reader looks for, without the cell
// (pp, tg, depth). A table's title is this label plus any other key field that
// differs between the run's configurations with one label (" | poll=0").
std::string config_label(const PointParams& p);
// The label without the thread settings: one model and context.
std::string context_label(const PointParams& p);
// One title per record that tells configurations apart: `label`'s text plus
// any other key field that differs between records with one label, except
// the fields `in_rows` says the table's rows show.
std::vector<std::string> table_titles(const std::vector<Record>& records,
                                      std::string (*label)(const PointParams&),
                                      bool (*in_rows)(const PointField&));
// "### TITLE" and a blank line; a terminal's (kCompact) wrapped to its width.
std::string table_heading(const std::string& title, TableWidth width);
// kWide: tables.md's columns; kCompact: a terminal's (no ± columns, the
// noise marks in one `flags` column).
std::string sweep_bench_tables(const std::vector<Record>& records,
                               TableWidth width = TableWidth::kWide);

// One plain sweep-bench table per configuration, as sweep-bench itself prints
// it: exactly its seven columns, numbers only, no title, failed points left
// out, so ik_llama.cpp's sweep-bench-plot.py reads each file (the richer
// tables above stay in tables.md). file: a name unique within the run.
struct SweepBenchFile {
  std::string file;
  std::string label;  // its title: config_label of its points (+ fields that separate it)
  std::string text;
};
std::vector<SweepBenchFile> sweep_bench_files(const std::vector<Record>& records);
// keep: the sweet spot's fractions of the best S_PP / S_TG (the seeds' 90%)
// (threads_tables.cpp). kCompact: a terminal's columns, the sweet spot on
// short lines.
std::string threads_tables(const std::vector<Record>& records, const SweetSpotOptions& keep = {},
                           TableWidth width = TableWidth::kWide);
// For meta.json: the points whose steal was flagged "*" in the tables, their
// count and the run's worst steal and load.
nlohmann::json noise_summary(const std::vector<Record>& records);

}  // namespace moesweep
