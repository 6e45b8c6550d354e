#include "report/count_table.hpp"

#include <fmt/format.h>

#include "report/markdown_table.hpp"

namespace moesweep {
namespace {

struct CountColumn {
  const char* field;   // in the phase's counters
  const char* header;  // in the table
  double scale;
  const char* format;
};

constexpr CountColumn kColumns[] = {
    {"instructions_per_token", "instructions", 1, "{:.0f}"},
    {"data_reads_per_token", "data reads", 1, "{:.0f}"},
    {"data_writes_per_token", "data writes", 1, "{:.0f}"},
    {"d1_misses_per_token", "D1 misses", 1, "{:.0f}"},
    {"ll_misses_per_token", "LL misses", 1, "{:.0f}"},
    {"ll_hit_rate", "LL hit rate", 100, "{:.2f}%"},
    {"dram_bytes_per_token", "DRAM MB", 1e-6, "{:.3f}"},
};

std::string cell(const nlohmann::json& counters, const CountColumn& c) {
  if (!counters.contains(c.field)) return "-";
  const nlohmann::json& v = counters[c.field];
  if (!v.is_number()) return "n/a";  // unavailable: the reason is in records.jsonl and report.md
  return fmt::format(fmt::runtime(c.format), v.get<double>() * c.scale);
}

bool simulated(const PhaseResult& p) {
  return p.counters.is_object() && p.counters.contains("simulated") &&
         p.counters["simulated"].is_object();
}

}  // namespace

std::string count_tables(const std::vector<Record>& records) {
  std::vector<std::string> header = {"model", "engine", "t", "N_KV", "phase"};
  for (const CountColumn& c : kColumns) header.push_back(c.header);
  MarkdownTable t(header);
  std::string cache;
  for (const Record& r : records) {
    if (!r.ok) continue;
    for (const auto& [name, phase] : {std::pair{"PP", &r.pp}, std::pair{"TG", &r.tg}}) {
      if (!simulated(*phase)) continue;
      cache = phase->counters["simulated"].value("cache", cache);
      std::vector<std::string> row = {
          r.params.model_name, r.params.engine.empty() ? "-" : r.params.engine,
          std::to_string(r.params.n_threads), std::to_string(r.params.n_kv), name};
      for (const CountColumn& c : kColumns) row.push_back(cell(phase->counters, c));
      t.add_row(std::move(row));
    }
  }
  if (t.rows() == 0) return "";
  return fmt::format(
      "## counts per token (simulated, {})\n\nPer token of each phase, summed over its "
      "repetitions; DRAM MB = LL misses x line size.\n\n{}",
      cache, t.render());
}

}  // namespace moesweep
