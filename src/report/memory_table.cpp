#include "report/memory_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "report/markdown_table.hpp"
#include "report/sweep_tables.hpp"
#include "results/memory_fields.hpp"

namespace moesweep {
namespace {

constexpr double kLogRoundingBytes = 0.005 * 1024 * 1024;

bool has_any(const MemoryFacts& m) {
  for (const MemoryField& f : memory_fields())
    if (m.*f.member) return true;
  return false;
}

// The context's facts: its last point's, with the largest peak RSS of any.
MemoryFacts context_facts(const std::vector<const Record*>& points) {
  MemoryFacts m = points.back()->memory;
  for (const Record* r : points)
    if (r->memory.peak_rss && (!m.peak_rss || *r->memory.peak_rss > *m.peak_rss))
      m.peak_rss = r->memory.peak_rss;
  return m;
}

// The context's label as one cell: its " | " separators would split it.
std::string cell_label(std::string label) {
  for (size_t at = 0; (at = label.find(" | ", at)) != std::string::npos;)
    label.replace(at, 3, ", ");
  return label;
}

}  // namespace

std::string kv_agreement(const MemoryFacts& m) {
  if (!m.kv || !m.kv_expected || *m.kv_expected == 0) return "n/a";
  const double diff = static_cast<double>(*m.kv) - static_cast<double>(*m.kv_expected);
  // The engine logs MiB with two decimals: closer than that is agreement.
  if (std::abs(diff) <= kLogRoundingBytes) return "= (to the log's 0.01 MiB)";
  return fmt::format("{:+.1f}%", 100 * diff / static_cast<double>(*m.kv_expected));
}

std::string memory_tables(const std::vector<Record>& records) {
  std::map<std::string, std::vector<const Record*>> by_context;
  std::vector<std::string> order;
  for (const Record& r : records) {
    if (!r.ok || !has_any(r.memory)) continue;
    // Each engine's worker has its own buffers (sweep --engine a,b): a row each.
    const std::string label =
        context_label(r.params) + (r.params.engine.empty() ? "" : " | engine " + r.params.engine);
    if (!by_context.count(label)) order.push_back(label);
    by_context[label].push_back(&r);
  }
  if (order.empty()) return "";
  std::vector<std::string> header = {"model, context"};
  for (const MemoryField& f : memory_fields()) header.push_back(f.header);
  header.push_back("KV engine vs expected");
  MarkdownTable t(header);
  std::map<std::string, std::string> why;  // field -> reason, once
  for (const std::string& label : order) {
    const MemoryFacts m = context_facts(by_context[label]);
    std::vector<std::string> row = {cell_label(label)};
    for (const MemoryField& f : memory_fields()) row.push_back(memory_mib_cell(m.*f.member));
    row.push_back(kv_agreement(m));
    t.add_row(row);
    for (const auto& [field, text] : m.unavailable.items())
      if (text.is_string()) why.emplace(field, text.get<std::string>());
  }
  std::string out = t.render();
  for (const auto& [field, text] : why) out += fmt::format("\n- {} n/a: {}", field, text);
  if (!why.empty()) out += "\n";
  return out;
}

}  // namespace moesweep
