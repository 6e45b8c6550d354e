// The seeds' threads table (threads | PP t/s | TG t/s, mean ± sd) per context
// and depth, with the decode roofline and the sweet spot under it.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "report/point_cells.hpp"
#include "report/sweep_tables.hpp"
#include "util/markdown_table.hpp"

namespace moesweep {
namespace {

// One row of a threads table: a thread configuration, alone and beside each
// co-tenant kind the run asked for.
struct ThreadRow {
  const Record* alone = nullptr;
  std::map<std::string, const Record*> beside;  // co-tenant kind -> its point
  const Record& any() const { return alone ? *alone : *beside.begin()->second; }
};

// The rows of one table: one context at one depth.
struct ThreadsGroup {
  std::string title;
  int n_kv = 0;
  std::vector<ThreadRow> rows;
  std::set<std::string> kinds;  // co-tenant kinds measured
};

// "12.3 GB/s" of the co-tenant's own work during the point, or "n/a".
std::string cotenant_throughput_cell(const Record& r) {
  const nlohmann::json t = r.cotenant.value("throughput", nlohmann::json());
  if (!t.is_number()) return "n/a";
  return fmt::format("{:.2f} {}", t.get<double>(), r.cotenant.value("unit", ""));
}

// A terminal's table leaves out threads_batch (shown as "gen/batch" where it
// differs), the co-tenants' own throughput, the roofline and the noise
// percentages (the marks stay): tables.md has them.
std::vector<std::string> threads_header(const std::set<std::string>& kinds, TableWidth width) {
  const bool wide = width == TableWidth::kWide;
  std::vector<std::string> h = {"threads"};
  if (wide) h.push_back("threads_batch");
  h.insert(h.end(), {"PP t/s", "TG t/s"});
  for (const std::string& k : kinds) {
    std::string head = wide ? "TG t/s beside " : "TG beside ";
    h.push_back(head += cotenant_label(k));
    if (wide) h.push_back(fmt::format("{} itself", cotenant_label(k)));
  }
  if (wide)
    h.insert(h.end(), {"TG roofline t/s", "TG efficiency", "others", "steal"});
  else
    h.insert(h.end(), {"TG efficiency", "flags"});
  return h;
}

std::string threads_cell(const PointParams& p, TableWidth width) {
  if (width == TableWidth::kWide || p.n_threads == p.n_threads_batch)
    return std::to_string(p.n_threads);
  return fmt::format("{}/{}", p.n_threads, p.n_threads_batch);
}

std::vector<std::string> threads_row(const ThreadRow& row, const std::set<std::string>& kinds,
                                     TableWidth width) {
  const bool wide = width == TableWidth::kWide;
  const Record& r = row.any();
  std::vector<std::string> cells = {threads_cell(r.params, width)};
  if (wide) cells.push_back(std::to_string(r.params.n_threads_batch));
  cells.insert(cells.end(), {mean_sd(r.pp.speed), row.alone ? mean_sd(r.tg.speed) : "-"});
  for (const std::string& k : kinds) {
    const auto it = row.beside.find(k);
    cells.push_back(it == row.beside.end() ? "-" : mean_sd(it->second->tg.speed));
    if (wide) cells.push_back(it == row.beside.end() ? "-" : cotenant_throughput_cell(*it->second));
  }
  const std::optional<PointRoofline>& roof = r.extra.roofline;
  const bool has_roof = roof && roof->roofline_tg && roof->efficiency_tg;
  if (wide) cells.push_back(has_roof ? fmt::format("{:.1f}", *roof->roofline_tg) : "n/a");
  cells.push_back(has_roof ? fmt::format("{:.0f}%", 100 * *roof->efficiency_tg) : "n/a");
  if (wide)
    cells.insert(cells.end(), {others_cell(r), steal_cell(r)});
  else
    cells.push_back(noise_flags(r));
  return cells;
}

// A threads-table row as the sweet spot reads it: means, their standard
// errors and sample counts (the fractions' CIs).
ThreadPoint thread_point(const Record& r) {
  auto se = [](const Stats& s) { return s.n > 1 ? s.sd / std::sqrt(static_cast<double>(s.n)) : 0; };
  return {r.params.n_threads, r.pp.speed.mean, r.tg.speed.mean, se(r.pp.speed),
          se(r.tg.speed),     r.pp.speed.n,    r.tg.speed.n};
}

// The sweet spot alone and beside each co-tenant (seed 000's 90% was measured
// with the other cores idle; under load it can move).
std::string sweet_spot_lines(const ThreadsGroup& g, const SweetSpotOptions& keep,
                             TableWidth width) {
  std::vector<ThreadPoint> alone;
  std::map<std::string, std::vector<ThreadPoint>> beside;
  for (const ThreadRow& row : g.rows) {
    if (row.alone) alone.push_back(thread_point(*row.alone));
    for (const auto& [k, r] : row.beside) beside[k].push_back(thread_point(*r));
  }
  std::string out;
  if (alone.size() > 1)
    (out += '\n') +=
        sweet_spot_text(find_sweet_spot(alone, keep), g.kinds.empty() ? "" : "alone: ", width);
  for (const auto& [k, points] : beside)
    if (points.size() > 1)
      (out += '\n') += sweet_spot_text(find_sweet_spot(points, keep),
                                       fmt::format("beside {}: ", cotenant_label(k)), width);
  return out;
}

bool co_tenant_field(const PointField& f) {
  return f.member == FieldMember(&PointParams::cotenant);
}

bool threads_table_field(const PointField& f) {
  return f.cell || f.threads_axis || co_tenant_field(f);
}

// The run's points as tables: one per context title and depth, in run order;
// rows in the order the thread settings first appear (the spec's order: the
// walk's snake visits them backwards at every other depth).
std::vector<ThreadsGroup> threads_groups(const std::vector<Record>& records) {
  std::vector<ThreadsGroup> groups;
  std::map<std::string, size_t> thread_rank;
  const std::vector<std::string> title = table_titles(records, context_label, threads_table_field);
  for (size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    if (!r.ok) continue;
    const std::string config = config_label(r.params);
    thread_rank.emplace(config, thread_rank.size());
    auto g = std::find_if(groups.begin(), groups.end(), [&](const ThreadsGroup& x) {
      return x.title == title[i] && x.n_kv == r.params.n_kv;
    });
    if (g == groups.end()) g = groups.insert(groups.end(), {title[i], r.params.n_kv, {}, {}});
    auto row = std::find_if(g->rows.begin(), g->rows.end(), [&](const ThreadRow& x) {
      return config_label(x.any().params) == config;
    });
    if (row == g->rows.end()) row = g->rows.insert(g->rows.end(), ThreadRow{});
    if (r.params.cotenant.empty()) {
      row->alone = &r;
    } else {
      row->beside[r.params.cotenant] = &r;
      g->kinds.insert(r.params.cotenant);
    }
  }
  for (ThreadsGroup& g : groups)
    std::stable_sort(g.rows.begin(), g.rows.end(), [&](const ThreadRow& a, const ThreadRow& b) {
      return thread_rank.at(config_label(a.any().params)) <
             thread_rank.at(config_label(b.any().params));
    });
  return groups;
}

}  // namespace

std::string threads_tables(const std::vector<Record>& records, const SweetSpotOptions& keep,
                           TableWidth width) {
  std::string out;
  for (const ThreadsGroup& g : threads_groups(records)) {
    MarkdownTable t(threads_header(g.kinds, width));
    for (const ThreadRow& row : g.rows) t.add_row(threads_row(row, g.kinds, width));
    out +=
        table_heading(fmt::format("threads at N_KV {} | {}", g.n_kv, g.title), width) + t.render();
    out += sweet_spot_lines(g, keep, width) + "\n";
  }
  return out;
}

}  // namespace moesweep
