#include "report/sweep_tables.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "hw/noise_probe.hpp"
#include "report/point_cells.hpp"
#include "results/point_fields.hpp"
#include "util/markdown_table.hpp"
#include "util/terminal_text.hpp"

namespace moesweep {

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

}  // namespace

// One title per record that tells configurations apart. `label` names the
// fields a reader looks for; a key field it leaves out (quant, poll, ...) that
// still differs between records with one label is appended (" | poll=0"), so
// two configurations never share a table. Fields shown in the rows are skipped.
std::vector<std::string> table_titles(const std::vector<Record>& records,
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

namespace {

bool cell_field(const PointField& f) {
  return f.cell;
}

}  // namespace

std::string table_heading(const std::string& title, TableWidth width) {
  const std::string heading = "### " + title;
  return (width == TableWidth::kWide ? heading : wrap_words(heading, kTerminalWidth, "    ")) +
         "\n\n";
}

namespace {

std::vector<std::string> sweep_bench_header(TableWidth width) {
  if (width == TableWidth::kCompact)
    return {"PP",       "TG",    "N_KV",  "T_PP s", "S_PP t/s", "T_TG s",
            "S_TG t/s", "CV PP", "CV TG", "n",      "flags"};
  return {"PP",     "TG",     "N_KV",  "T_PP s", "S_PP t/s", "T_TG s", "S_TG t/s",
          "± S_PP", "± S_TG", "CV PP", "CV TG",  "n",        "others", "steal"};
}

std::vector<std::string> sweep_bench_row(const Record& r, TableWidth width) {
  const PointParams& p = r.params;
  std::vector<std::string> row = {std::to_string(p.pp),
                                  std::to_string(p.tg),
                                  std::to_string(p.n_kv),
                                  fmt::format("{:.3f}", r.pp.t.mean),
                                  with_flag(r.pp.speed.mean, r.pp.speed.cv, 2),
                                  fmt::format("{:.3f}", r.tg.t.mean),
                                  with_flag(r.tg.speed.mean, r.tg.speed.cv, 2)};
  if (width == TableWidth::kWide)
    row.insert(row.end(),
               {fmt::format("{:.2f}", r.pp.speed.sd), fmt::format("{:.2f}", r.tg.speed.sd)});
  row.insert(row.end(), {fmt::format("{:.1f}%", 100 * r.pp.speed.cv),
                         fmt::format("{:.1f}%", 100 * r.tg.speed.cv), repetitions_cell(r)});
  if (width == TableWidth::kWide)
    row.insert(row.end(), {others_cell(r), steal_cell(r)});
  else
    row.push_back(noise_flags(r));
  return row;
}

}  // namespace

std::string sweep_bench_tables(const std::vector<Record>& records, TableWidth width) {
  std::map<std::string, std::vector<const Record*>> by_config;
  std::vector<std::string> order;
  const std::vector<std::string> title = table_titles(records, config_label, cell_field);
  for (size_t i = 0; i < records.size(); ++i) {
    const std::string& label = title[i];
    if (!by_config.count(label)) order.push_back(label);
    by_config[label].push_back(&records[i]);
  }
  std::string out;
  for (const std::string& label : order) {
    MarkdownTable t(sweep_bench_header(width));
    std::vector<std::string> failures;
    for (const Record* r : by_config[label]) {
      if (r->ok)
        t.add_row(sweep_bench_row(*r, width));
      else
        failures.push_back(fmt::format("N_KV {}: {}", r->params.n_kv, r->error));
    }
    out += table_heading(label, width);
    if (t.rows() > 0) out += t.render();
    for (const std::string& f : failures)
      (out += '\n') +=
          (width == TableWidth::kWide ? "FAILED " + f
                                      : wrap_words("FAILED " + f, kTerminalWidth, "  ")) +
          "\n";
    out += "\n";
  }
  if (!out.empty()) out += marks_legend();
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
  const std::vector<std::string> title = table_titles(records, config_label, cell_field);
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
