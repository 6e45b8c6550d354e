#include "report/sweep_tables.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "hw/noise_probe.hpp"
#include "report/markdown_table.hpp"
#include "report/sweet_spot.hpp"
#include "results/point_fields.hpp"

namespace moesweep {
namespace {

std::string with_flag(double value, double cv, int decimals) {
  return fmt::format("{:.{}f}{}", value, decimals, cv > kHighCv ? " !" : "");
}

// The point's steal as a percentage, "*" when above kStealFlagFraction;
// "n/a" for records without it (older runs, /proc/stat unreadable).
std::string steal_cell(const Record& r) {
  const nlohmann::json steal = r.noise.value("steal_fraction", nlohmann::json());
  if (!steal.is_number()) return "n/a";
  const double f = steal.get<double>();
  return fmt::format("{:.1f}%{}", 100 * f, f > kStealFlagFraction ? " *" : "");
}

// Whether other processes crowded the point: the probe's own verdict (it
// also asks for a few ticks of their time, NoiseReading::others_flagged),
// else the fraction against kOthersFlagFraction.
bool others_flagged(const Record& r) {
  const nlohmann::json flag = r.noise.value("others_flagged", nlohmann::json());
  if (flag.is_boolean()) return flag.get<bool>();
  const nlohmann::json others = r.noise.value("others_fraction", nlohmann::json());
  return others.is_number() && others.get<double>() > kOthersFlagFraction;
}

// Other processes' CPU time on the point's CPUs as a percentage, "+" when
// flagged; "n/a" for records without it.
std::string others_cell(const Record& r) {
  const nlohmann::json others = r.noise.value("others_fraction", nlohmann::json());
  if (!others.is_number()) return "n/a";
  return fmt::format("{:.1f}%{}", 100 * others.get<double>(), others_flagged(r) ? " +" : "");
}

// Repetitions taken; "max" when --target-ci / --target-mde was not met.
std::string repetitions_cell(const Record& r) {
  const int n = std::max(r.pp.speed.n, r.tg.speed.n);
  return fmt::format("{}{}", n, r.repetitions.target_met ? "" : " max");
}

std::string mean_sd(const Stats& s) {
  return fmt::format("{:.2f} ± {:.2f}{}", s.mean, s.sd, s.cv > kHighCv ? " !" : "");
}

std::string legend() {
  return fmt::format(
      "`!`: coefficient of variation above {:.0f}%: noisy, rerun with more -r.\n"
      "`*`: CPU steal above {:.0f}% of the point's wall time x CPUs: the hypervisor ran others "
      "on this machine's CPUs; distrust the point and rerun it.\n"
      "`+`: other processes of this machine (not the engine, not the point's planned co-tenant) "
      "used more than {:.0f}% of the point's CPUs: an unplanned co-tenant (a compile job, a "
      "backup); distrust the point and rerun it on a quiet machine.\n"
      "`max`: --target-ci / --target-mde not reached within --max-repetitions or --max-time.\n",
      100 * kHighCv, 100 * kStealFlagFraction, 100 * kOthersFlagFraction);
}

}  // namespace

std::string context_label(const PointParams& p) {
  return fmt::format("{} | ctx {} b {} ub {} | K {} V {} | fa {}{}", p.model_name, p.n_ctx,
                     p.n_batch, p.n_ubatch, p.type_k, p.type_v, flash_attn_name(p.flash_attn),
                     p.tensor_overrides.empty() ? "" : " | -ot " + p.tensor_overrides);
}

std::string config_label(const PointParams& p) {
  return fmt::format("{} | threads {}/{}{}", context_label(p), p.n_threads, p.n_threads_batch,
                     p.cpu_mask.empty() ? "" : " mask " + p.cpu_mask);
}

namespace {

// A field's value in a title: its display form where it has one (a co-tenant
// "none" rather than blank).
std::string title_value(const PointField& f, const PointParams& p) {
  return f.label_value ? f.label_value(p) : field_text(f, p);
}

// One title per record that tells configurations apart. `label` names the
// fields a reader looks for; a key field it leaves out (quant, poll, ...) that
// still differs between records with one label is appended (" | poll=0"), so
// two configurations never share a table. Fields shown in the rows are skipped.
std::vector<std::string> titles(const std::vector<Record>& records,
                                std::string (*label)(const PointParams&),
                                bool (*in_rows)(const PointField&)) {
  std::map<std::string, std::vector<size_t>> by_label;
  for (size_t i = 0; i < records.size(); ++i) by_label[label(records[i].params)].push_back(i);
  std::vector<std::string> out(records.size());
  for (const auto& [text, members] : by_label) {
    std::vector<const PointField*> extra;
    for (const PointField& f : point_fields()) {
      if (!f.key || in_rows(f)) continue;
      std::set<std::string> values;
      for (size_t i : members) values.insert(title_value(f, records[i].params));
      if (values.size() > 1) extra.push_back(&f);
    }
    for (size_t i : members) {
      out[i] = text;
      for (const PointField* f : extra)
        out[i] += fmt::format(" | {}={}", f->key, title_value(*f, records[i].params));
    }
  }
  return out;
}

bool cell_field(const PointField& f) {
  return f.cell;
}

}  // namespace

std::string sweep_bench_tables(const std::vector<Record>& records) {
  std::map<std::string, std::vector<const Record*>> by_config;
  std::vector<std::string> order;
  const std::vector<std::string> title = titles(records, config_label, cell_field);
  for (size_t i = 0; i < records.size(); ++i) {
    const std::string& label = title[i];
    if (!by_config.count(label)) order.push_back(label);
    by_config[label].push_back(&records[i]);
  }
  std::string out;
  for (const std::string& label : order) {
    MarkdownTable t({"PP", "TG", "N_KV", "T_PP s", "S_PP t/s", "T_TG s", "S_TG t/s", "± S_PP",
                     "± S_TG", "CV PP", "CV TG", "n", "others", "steal"});
    std::vector<std::string> failures;
    for (const Record* r : by_config[label]) {
      const PointParams& p = r->params;
      if (!r->ok) {
        failures.push_back(fmt::format("N_KV {}: {}", p.n_kv, r->error));
        continue;
      }
      t.add_row(
          {std::to_string(p.pp), std::to_string(p.tg), std::to_string(p.n_kv),
           fmt::format("{:.3f}", r->pp.t.mean), with_flag(r->pp.speed.mean, r->pp.speed.cv, 2),
           fmt::format("{:.3f}", r->tg.t.mean), with_flag(r->tg.speed.mean, r->tg.speed.cv, 2),
           fmt::format("{:.2f}", r->pp.speed.sd), fmt::format("{:.2f}", r->tg.speed.sd),
           fmt::format("{:.1f}%", 100 * r->pp.speed.cv),
           fmt::format("{:.1f}%", 100 * r->tg.speed.cv), repetitions_cell(*r), others_cell(*r),
           steal_cell(*r)});
    }
    out += fmt::format("### {}\n\n", label);
    if (t.rows() > 0) out += t.render();
    for (const std::string& f : failures) out += fmt::format("\nFAILED {}\n", f);
    out += "\n";
  }
  if (!out.empty()) out += legend();
  return out;
}

namespace {

// A file name from a label: letters, digits and ".-+" kept, the rest '_'.
std::string file_slug(const std::string& label) {
  std::string out;
  for (char c : label) {
    const bool keep =
        std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+';
    if (keep)
      out += c;
    else if (!out.empty() && out.back() != '_')
      out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out.substr(0, 120);  // well under NAME_MAX with the prefix
}

}  // namespace

std::vector<SweepBenchFile> sweep_bench_files(const std::vector<Record>& records) {
  std::map<std::string, MarkdownTable> tables;
  std::vector<std::string> order;
  const std::vector<std::string> title = titles(records, config_label, cell_field);
  for (size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    if (!r.ok) continue;
    const std::string& label = title[i];
    if (!tables.count(label)) {
      order.push_back(label);
      tables.emplace(
          label, MarkdownTable({"PP", "TG", "N_KV", "T_PP s", "S_PP t/s", "T_TG s", "S_TG t/s"}));
    }
    const PointParams& p = r.params;
    tables.at(label).add_row(
        {std::to_string(p.pp), std::to_string(p.tg), std::to_string(p.n_kv),
         fmt::format("{:.3f}", r.pp.t.mean), fmt::format("{:.2f}", r.pp.speed.mean),
         fmt::format("{:.3f}", r.tg.t.mean), fmt::format("{:.2f}", r.tg.speed.mean)});
  }
  std::vector<SweepBenchFile> files;
  for (size_t i = 0; i < order.size(); ++i) {
    files.push_back({fmt::format("{:02}-{}.md", i + 1, file_slug(order[i])), order[i],
                     tables.at(order[i]).render()});
  }
  return files;
}

namespace {

// One row of a threads table: a thread configuration, alone and beside each
// co-tenant kind the run asked for.
struct ThreadRow {
  const Record* alone = nullptr;
  std::map<std::string, const Record*> beside;  // co-tenant kind -> its point
  const Record& any() const { return alone ? *alone : *beside.begin()->second; }
};

// "12.3 GB/s" of the co-tenant's own work during the point, or "n/a".
std::string cotenant_throughput_cell(const Record& r) {
  const nlohmann::json t = r.cotenant.value("throughput", nlohmann::json());
  if (!t.is_number()) return "n/a";
  return fmt::format("{:.2f} {}", t.get<double>(), r.cotenant.value("unit", ""));
}

std::vector<std::string> threads_header(const std::set<std::string>& kinds) {
  std::vector<std::string> h = {"threads", "threads_batch", "PP t/s", "TG t/s"};
  for (const std::string& k : kinds) {
    h.push_back(fmt::format("TG t/s beside {}", cotenant_label(k)));
    h.push_back(fmt::format("{} itself", cotenant_label(k)));
  }
  for (const char* c : {"TG roofline t/s", "TG efficiency", "others", "steal"}) h.push_back(c);
  return h;
}

std::vector<std::string> threads_row(const ThreadRow& row, const std::set<std::string>& kinds) {
  const Record& r = row.any();
  std::vector<std::string> cells = {std::to_string(r.params.n_threads),
                                    std::to_string(r.params.n_threads_batch), mean_sd(r.pp.speed),
                                    row.alone ? mean_sd(r.tg.speed) : "-"};
  for (const std::string& k : kinds) {
    const auto it = row.beside.find(k);
    cells.push_back(it == row.beside.end() ? "-" : mean_sd(it->second->tg.speed));
    cells.push_back(it == row.beside.end() ? "-" : cotenant_throughput_cell(*it->second));
  }
  const nlohmann::json roof = r.extra.value("roofline", nlohmann::json::object());
  const bool has_roof = roof.contains("roofline_tg") && roof.contains("efficiency_tg");
  cells.push_back(has_roof ? fmt::format("{:.1f}", roof["roofline_tg"].get<double>()) : "n/a");
  cells.push_back(has_roof ? fmt::format("{:.0f}%", 100 * roof["efficiency_tg"].get<double>())
                           : "n/a");
  cells.push_back(others_cell(r));
  cells.push_back(steal_cell(r));
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
std::string sweet_spot_lines(const std::vector<ThreadRow>& rows, const std::set<std::string>& kinds,
                             const SweetSpotOptions& keep) {
  std::vector<ThreadPoint> alone;
  std::map<std::string, std::vector<ThreadPoint>> beside;
  for (const ThreadRow& row : rows) {
    if (row.alone) alone.push_back(thread_point(*row.alone));
    for (const auto& [k, r] : row.beside) beside[k].push_back(thread_point(*r));
  }
  std::string out;
  if (alone.size() > 1)
    out += fmt::format("\n{}{}\n",
                       kinds.empty() ? "" : "alone: ", find_sweet_spot(alone, keep).summary);
  for (const auto& [k, points] : beside)
    if (points.size() > 1)
      out += fmt::format("\nbeside {}: {}\n", cotenant_label(k),
                         find_sweet_spot(points, keep).summary);
  return out;
}

bool co_tenant_field(const PointField& f) {
  return f.member == FieldMember(&PointParams::cotenant);
}

bool threads_table_field(const PointField& f) {
  return f.cell || f.threads_axis || co_tenant_field(f);
}

}  // namespace

std::string threads_tables(const std::vector<Record>& records, const SweetSpotOptions& keep) {
  // (context label, depth) -> rows by thread config, in run order
  std::map<std::pair<std::string, int>, std::vector<ThreadRow>> groups;
  std::map<std::pair<std::string, int>, std::set<std::string>> kinds;
  std::vector<std::pair<std::string, int>> order;
  // Rows in the order the thread settings first appear (the spec's order):
  // the walk's snake visits them backwards at every other depth.
  std::map<std::string, size_t> thread_rank;
  const std::vector<std::string> title = titles(records, context_label, threads_table_field);
  for (size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    if (!r.ok) continue;
    const std::string config = config_label(r.params);
    thread_rank.emplace(config, thread_rank.size());
    auto key = std::make_pair(title[i], r.params.n_kv);
    if (!groups.count(key)) order.push_back(key);
    std::vector<ThreadRow>& rows = groups[key];
    auto row = std::find_if(rows.begin(), rows.end(), [&](const ThreadRow& x) {
      return config_label(x.any().params) == config;
    });
    if (row == rows.end()) row = rows.insert(rows.end(), ThreadRow{});
    if (r.params.cotenant.empty()) {
      row->alone = &r;
    } else {
      row->beside[r.params.cotenant] = &r;
      kinds[key].insert(r.params.cotenant);
    }
  }
  std::string out;
  for (const auto& key : order) {
    std::vector<ThreadRow>& rows = groups[key];
    std::stable_sort(rows.begin(), rows.end(), [&](const ThreadRow& a, const ThreadRow& b) {
      return thread_rank.at(config_label(a.any().params)) <
             thread_rank.at(config_label(b.any().params));
    });
    MarkdownTable t(threads_header(kinds[key]));
    for (const ThreadRow& row : rows) t.add_row(threads_row(row, kinds[key]));
    out += fmt::format("### threads at N_KV {} | {}\n\n{}", key.second, key.first, t.render());
    out += sweet_spot_lines(rows, kinds[key], keep) + "\n";
  }
  return out;
}

namespace {

// The points whose other-process time was flagged "+", and the run's worst.
nlohmann::json others_summary(const std::vector<Record>& records) {
  nlohmann::json flagged = nlohmann::json::array();
  double worst = 0;
  for (const Record& r : records) {
    const nlohmann::json others = r.noise.value("others_fraction", nlohmann::json());
    if (!others.is_number()) continue;
    worst = std::max(worst, others.get<double>());
    if (others_flagged(r))
      flagged.push_back({{"point", r.point_index},
                         {"n_kv", r.params.n_kv},
                         {"n_threads", r.params.n_threads},
                         {"others_fraction", others}});
  }
  return {{"threshold", kOthersFlagFraction},
          {"flagged_count", flagged.size()},
          {"flagged_points", flagged},
          {"max_fraction", worst}};
}

}  // namespace

nlohmann::json noise_summary(const std::vector<Record>& records) {
  nlohmann::json flagged = nlohmann::json::array();
  int measured = 0;
  double max_steal = 0, max_load = 0;
  for (const Record& r : records) {
    const nlohmann::json steal = r.noise.value("steal_fraction", nlohmann::json());
    const nlohmann::json load = r.noise.value("load_1m", nlohmann::json());
    if (load.is_number()) max_load = std::max(max_load, load.get<double>());
    if (!steal.is_number()) continue;
    ++measured;
    max_steal = std::max(max_steal, steal.get<double>());
    if (steal.get<double>() > kStealFlagFraction)
      flagged.push_back({{"point", r.point_index},
                         {"n_kv", r.params.n_kv},
                         {"n_threads", r.params.n_threads},
                         {"steal_fraction", steal}});
  }
  return {{"steal_threshold", kStealFlagFraction},     {"points_with_steal", measured},
          {"flagged_count", flagged.size()},           {"flagged_points", flagged},
          {"max_steal_fraction", max_steal},           {"max_load_1m", max_load},
          {"other_processes", others_summary(records)}};
}

}  // namespace moesweep
