#include "report/run_report.hpp"

#include <fmt/format.h>

#include <map>

#include "report/memory_table.hpp"
#include "report/plots.hpp"
#include "report/series.hpp"
#include "report/token_report.hpp"
#include "report/working_set.hpp"
#include "results/counter_fields.hpp"
#include "util/json_file.hpp"
#include "util/markdown_table.hpp"

namespace moesweep {
namespace {

std::string num(double v, int decimals = 2) {
  return fmt::format("{:.{}f}", v, decimals);
}

std::string pm(const Stats& s) {
  if (s.n < 2) return num(s.mean);
  return fmt::format("{:.2f} ± {:.2f}", s.mean, s.ci95);
}

// Scalars of meta.json, flattened ("/engine/commit"); long lists are summarised.
void environment_section(std::string& out, const LoadedRun& run) {
  out += "## Environment\n\n";
  out += fmt::format("- source: {} `{}`\n", run.source, run.label);
  if (!run.run_id.empty()) out += fmt::format("- run id: `{}`\n", run.run_id);
  if (!run.meta) {
    out += "- no meta.json with this run: engine, CPU and build are unknown\n\n";
    return;
  }
  out += fmt::format("- status: **\"{}\"**\n", run_status_name(run.meta->status));
  MarkdownTable table({"fact", "value"});
  const nlohmann::json flat = to_json(*run.meta).flatten();  // items() must not outlive it
  for (const auto& [key, value] : flat.items()) {
    std::string text = value.is_string() ? value.get<std::string>() : value.dump();
    if (text.size() > 120) text = text.substr(0, 117) + "...";
    for (char& c : text) {
      if (c == '|' || c == '\n') c = ' ';
    }
    table.add_row({"`" + key + "`", text});
  }
  out += "\n<details><summary>meta.json (" + std::to_string(table.rows()) +
         " facts)</summary>\n\n" + table.render() + "\n</details>\n\n";
}

// sweep-bench's columns exactly, then ours (95% CI half-widths, CV, samples).
void nkv_tables(std::string& out, const LoadedRun& run) {
  out += "## PP / TG against N_KV\n\n";
  out += "Speeds are means over the kept repetitions; ± is the 95% confidence half-width.\n\n";
  for (const Series& s : group_by_axis(run.records, Axis::kNKv)) {
    out += fmt::format("### {}\n\n", s.label);
    MarkdownTable t({"PP", "TG", "N_KV", "T_PP s", "S_PP t/s", "T_TG s", "S_TG t/s", "S_PP ± 95%",
                     "S_TG ± 95%", "CV TG", "reps"});
    for (const Record* r : s.points) {
      const PointParams& p = r->params;
      t.add_row({std::to_string(p.pp), std::to_string(p.tg), std::to_string(p.n_kv),
                 num(r->pp.t.mean, 3), num(r->pp.speed.mean), num(r->tg.t.mean, 3),
                 num(r->tg.speed.mean), pm(r->pp.speed), pm(r->tg.speed),
                 fmt::format("{:.1f}%", r->tg.speed.cv * 100), std::to_string(r->tg.speed.n)});
    }
    out += t.render() + "\n";
  }
}

void threads_table(std::string& out, const LoadedRun& run) {
  if (distinct_axis_values(run.records, Axis::kThreads) < 2) return;
  out += "## Threads\n\n";
  for (const Series& s : group_by_axis(run.records, Axis::kThreads)) {
    out += fmt::format("### {}\n\n", s.label);
    MarkdownTable t({"threads", "S_PP t/s", "S_TG t/s", "S_TG vs best"});
    double best = 0;
    for (const Record* r : s.points) best = std::max(best, r->tg.speed.mean);
    for (const Record* r : s.points) {
      t.add_row({std::to_string(r->params.n_threads), pm(r->pp.speed), pm(r->tg.speed),
                 best > 0 ? fmt::format("{:.0f}%", 100 * r->tg.speed.mean / best) : "-"});
    }
    out += t.render() + "\n";
  }
}

// Counters as measured; unavailable ones are listed once with the reason the
// backend gave -- never a made-up number. A field's source (`hardware`,
// `simulated`) is the phase's `sources` entry; simulated ones name their cache.
void counters_section(std::string& out, const LoadedRun& run) {
  std::map<std::string, std::string> unavailable;
  std::string simulated;  // "LL 32 MiB 16-way" when the run's counts are valgrind's
  MarkdownTable t({"threads", "N_KV", "phase", "metric", "value", "source"});
  for (const Record& r : run.records) {
    if (!r.ok) continue;
    for (const auto& [phase_name, phase] : {std::pair{"PP", &r.pp}, std::pair{"TG", &r.tg}}) {
      const nlohmann::json& c = phase->counters;
      if (!c.is_object()) continue;
      if (c.contains("simulated") && c["simulated"].is_object())
        simulated = c["simulated"].value("cache", "");
      for (const auto& [metric, value] : c.items()) {
        if (is_counter_metadata(metric)) continue;
        if (value.is_number()) {
          const nlohmann::json* source =
              c.contains("sources") && c["sources"].is_object() && c["sources"].contains(metric)
                  ? &c["sources"][metric]
                  : nullptr;
          t.add_row({std::to_string(r.params.n_threads), std::to_string(r.params.n_kv), phase_name,
                     metric, fmt::format("{:.6g}", value.get<double>()),
                     source && source->is_string() ? source->get<std::string>() : ""});
        } else {
          unavailable[metric] = value.is_object() && value.contains("unavailable")
                                    ? value["unavailable"].dump()
                                    : value.dump();
        }
      }
    }
  }
  if (t.rows() == 0 && unavailable.empty()) return;
  out += simulated.empty() ? "## Counters\n\n" : "## Counters (simulated, " + simulated + ")\n\n";
  if (t.rows() > 0) out += t.render() + "\n";
  if (!unavailable.empty()) {
    out += "Not measured on this machine:\n\n";
    for (const auto& [metric, why] : unavailable) out += fmt::format("- {}: {}\n", metric, why);
    out += "\n";
  }
}

// The memory figures per context (issue 23), where the run recorded them.
void memory_section(std::string& out, const LoadedRun& run) {
  const std::string table = memory_tables(run.records);
  if (!table.empty()) out += "## Memory\n\n" + table + "\n";
}

void failed_section(std::string& out, const LoadedRun& run) {
  std::string list;
  for (const Record& r : run.records) {
    if (!r.ok) list += fmt::format("- `{}`: {}\n", r.params.key_string(), r.error);
  }
  if (!list.empty()) out += "## Failed points\n\n" + list + "\n";
}

void references_section(std::string& out, const std::vector<LoadedRun>& refs) {
  if (refs.empty()) return;
  out += "## Published tables drawn beside this run\n\n";
  for (const LoadedRun& ref : refs) {
    out += fmt::format("- `{}` ({} points)", ref.label, ref.records.size());
    if (!ref.records.empty() && ref.records.front().extra.reference) {
      const PublishedReference& info = *ref.records.front().extra.reference;
      out += fmt::format(": {} on {}", info.table.value_or(""), info.hardware.value_or(""));
    }
    out += "\n";
  }
  out += "\n";
}

}  // namespace

std::string report_markdown(const LoadedRun& run, const ReportOptions& options,
                            const std::vector<std::filesystem::path>& pngs,
                            const std::string& plot_problem) {
  int ok = 0;
  for (const Record& r : run.records) ok += r.ok;
  std::string out =
      fmt::format("# moesweep report: {}\n\n{} points ({} ok, {} failed).\n\n", run.label,
                  run.records.size(), ok, static_cast<int>(run.records.size()) - ok);
  if (!pngs.empty()) {
    out += "## Plots\n\n";
    for (const auto& png : pngs) {
      out += fmt::format("![{0}]({0})\n\n", png.filename().string());
    }
  } else if (options.plots) {
    out += fmt::format("Plots: none ({}).\n\n", plot_problem);
  }
  if (const auto ws = analyse_working_set(run.records)) out += working_set_markdown(*ws);
  nkv_tables(out, run);
  threads_table(out, run);
  out += token_times_markdown(run);
  counters_section(out, run);
  memory_section(out, run);
  failed_section(out, run);
  references_section(out, options.references);
  environment_section(out, run);
  return out;
}

ReportOutcome write_report(const LoadedRun& run, const ReportOptions& options) {
  ReportOutcome outcome;
  std::filesystem::create_directories(options.out_dir);
  if (options.plots) {
    nlohmann::json data = plot_data(run, options.references);
    add_token_plots(run, data);
    PlotOutcome plots = draw_plots(data, options.out_dir);
    outcome.pngs = plots.pngs;
    outcome.plot_problem = plots.problem;
  }
  outcome.markdown = options.out_dir / "report.md";
  write_file_atomically(outcome.markdown,
                        report_markdown(run, options, outcome.pngs, outcome.plot_problem));
  return outcome;
}

}  // namespace moesweep
