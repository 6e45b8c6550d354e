#include "report/count_table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

#include "util/markdown_table.hpp"
#include "util/terminal_text.hpp"

namespace moesweep {
namespace {

struct CountColumn {
  const char* field;   // in the phase's counters
  const char* header;  // in the table
  double scale;
  const char* format;
  bool terminal;  // in the table a terminal gets
};

constexpr CountColumn kColumns[] = {
    {"instructions_per_token", "instructions", 1, "{:.0f}", true},
    {"data_reads_per_token", "data reads", 1, "{:.0f}", false},
    {"data_writes_per_token", "data writes", 1, "{:.0f}", false},
    {"d1_misses_per_token", "D1 misses", 1, "{:.0f}", true},
    {"ll_misses_per_token", "LL misses", 1, "{:.0f}", true},
    {"ll_hit_rate", "LL hit rate", 100, "{:.2f}%", true},
    {"dram_bytes_per_token", "DRAM MB", 1e-6, "{:.3f}", true},
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

std::string count_tables(const std::vector<Record>& records, TableWidth width) {
  const bool wide = width == TableWidth::kWide;
  std::vector<std::string> header = {"engine", "t", "N_KV", "phase"};
  if (wide) header.insert(header.begin(), "model");
  for (const CountColumn& c : kColumns)
    if (wide || c.terminal) header.push_back(c.header);
  MarkdownTable t(header);
  std::string cache;
  std::set<std::string> models;
  for (const Record& r : records) {
    if (!r.ok) continue;
    for (const auto& [name, phase] : {std::pair{"PP", &r.pp}, std::pair{"TG", &r.tg}}) {
      if (!simulated(*phase)) continue;
      cache = phase->counters["simulated"].value("cache", cache);
      models.insert(r.params.model_name);
      std::vector<std::string> row = {r.params.engine.empty() ? "-" : r.params.engine,
                                      std::to_string(r.params.n_threads),
                                      std::to_string(r.params.n_kv), name};
      if (wide) row.insert(row.begin(), r.params.model_name);
      for (const CountColumn& c : kColumns)
        if (wide || c.terminal) row.push_back(cell(phase->counters, c));
      t.add_row(std::move(row));
    }
  }
  if (t.rows() == 0) return "";
  std::string out = fmt::format("## counts per token (simulated, {})\n\n", cache);
  out += fit(fmt::format("Per token of each phase, summed over its repetitions; DRAM MB = LL "
                         "misses x line size{}.",
                         wide ? ""
                              : fmt::format("; models {}; data reads and writes in tables.md",
                                            fmt::join(models, ", "))),
             width);
  return out + "\n\n" + t.render();
}

}  // namespace moesweep
