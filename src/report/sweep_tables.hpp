#pragma once
// The tables people compare with published ones: sweep-bench's PP/TG/N_KV
// table (exact columns, ours after them) per configuration, and the seeds'
// threads table (threads | PP t/s | TG t/s, mean ± sd) per depth.
#include <string>
#include <vector>

#include "report/sweet_spot.hpp"
#include "results/record.hpp"

namespace moesweep {

inline constexpr double kHighCv = 0.05;  // CV above this is flagged "!" in tables

// Configuration label: the parameters a reader looks for, without the cell
// (pp, tg, depth). A table's title is this label plus any other key field that
// differs between the run's configurations with one label (" | poll=0").
std::string config_label(const PointParams& p);
// The label without the thread settings: one model and context.
std::string context_label(const PointParams& p);
std::string sweep_bench_tables(const std::vector<Record>& records);

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
// keep: the sweet spot's fractions of the best S_PP / S_TG (the seeds' 90%).
std::string threads_tables(const std::vector<Record>& records, const SweetSpotOptions& keep = {});
// For meta.json: the points whose steal was flagged "*" in the tables, their
// count and the run's worst steal and load.
nlohmann::json noise_summary(const std::vector<Record>& records);

}  // namespace moesweep
