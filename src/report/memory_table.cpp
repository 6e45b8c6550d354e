#include "report/memory_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "report/sweep_tables.hpp"
#include "results/memory_fields.hpp"
#include "util/markdown_table.hpp"
#include "util/terminal_text.hpp"

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

namespace {

// A terminal's row label: the context's sizes (its model when the run has
// several, its cache types when they differ between rows, its engine).
struct ShortLabel {
  bool models = false, cache_types = false;
  std::string operator()(const PointParams& p) const {
    std::string out = fmt::format("ctx {} ub {}", p.n_ctx, p.n_ubatch);
    if (cache_types) out += fmt::format(" K/V {}/{}", p.type_k, p.type_v);
    if (models) out = p.model_name + ", " + out;
    if (!p.engine.empty()) out += ", " + p.engine;
    return out;
  }
};

ShortLabel short_label_for(const std::vector<Record>& records) {
  std::set<std::string> models, types;
  for (const Record& r : records)
    if (r.ok && has_any(r.memory)) {
      models.insert(r.params.model_name);
      types.insert(r.params.type_k + "/" + r.params.type_v);
    }
  return {models.size() > 1, types.size() > 1};
}

bool in_table(const MemoryField& f, TableWidth width) {
  return width == TableWidth::kWide || f.terminal;
}

}  // namespace

std::string memory_tables(const std::vector<Record>& records, TableWidth width) {
  const bool wide = width == TableWidth::kWide;
  const ShortLabel short_label = short_label_for(records);
  std::map<std::string, std::vector<const Record*>> by_context;
  std::vector<std::string> order;
  for (const Record& r : records) {
    if (!r.ok || !has_any(r.memory)) continue;
    // Each engine's worker has its own buffers (sweep --engine a,b): a row each.
    const std::string label =
        wide ? context_label(r.params) +
                   (r.params.engine.empty() ? "" : " | engine " + r.params.engine)
             : short_label(r.params);
    if (!by_context.count(label)) order.push_back(label);
    by_context[label].push_back(&r);
  }
  if (order.empty()) return "";
  std::vector<std::string> header = {wide ? "model, context" : "context"};
  for (const MemoryField& f : memory_fields())
    if (in_table(f, width)) header.push_back(f.header);
  header.push_back(wide ? "KV engine vs expected" : "KV vs expected");
  MarkdownTable t(header);
  std::map<std::string, std::string> why;  // field -> reason, once
  for (const std::string& label : order) {
    const MemoryFacts m = context_facts(by_context[label]);
    std::vector<std::string> row = {cell_label(label)};
    for (const MemoryField& f : memory_fields())
      if (in_table(f, width)) row.push_back(memory_mib_cell(m.*f.member));
    const std::string agreement = kv_agreement(m);
    row.push_back(wide || agreement.rfind("= ", 0) != 0 ? agreement : "=");
    t.add_row(row);
    for (const auto& [field, text] : m.unavailable.items())
      if (text.is_string()) why.emplace(field, text.get<std::string>());
  }
  std::string out = t.render();
  for (const auto& [field, text] : why)
    (out += '\n') += fit(fmt::format("- {} n/a: {}", field, text), width, "  ");
  if (!why.empty()) out += "\n";
  if (!wide)
    out +=
        "\n- `=`: the engine's KV buffer is kv_bytes_per_token x n_ctx to the log's 0.01 MiB; "
        "every column: tables.md\n";
  return out;
}

}  // namespace moesweep
