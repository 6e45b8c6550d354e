#include "report/token_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "util/markdown_table.hpp"
#include "results/token_file.hpp"
#include "results/token_times.hpp"

namespace moesweep {
namespace {

constexpr size_t kMaxHistogramPanels = 16;
constexpr size_t kMaxHistogramValues = 20000;  // per panel: every k-th token beyond it

double field(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
}

// "t=2 N_KV=512", with the model in front when the run has several.
std::string point_label(const PointParams& p, bool models) {
  const std::string head = models ? p.model_name + " " : "";
  return fmt::format("{}t={} N_KV={}", head, p.n_threads, p.n_kv);
}

bool several_models(const LoadedRun& run) {
  std::set<std::string> names;
  for (const Record& r : run.records) names.insert(r.params.model_name);
  return names.size() > 1;
}

std::string effect_text(const nlohmann::json& e) {
  if (!e.is_object() || !e.contains("ci95_pct") || !e["ci95_pct"].is_array()) return "";
  return fmt::format("{:+.1f}% [{:+.1f}%, {:+.1f}%], MDE {:.1f}%, {} pairs", field(e, "faster_pct"),
                     e["ci95_pct"][0].get<double>(), e["ci95_pct"][1].get<double>(),
                     field(e, "mde_pct"), static_cast<int>(field(e, "pairs")));
}

void add_row(MarkdownTable& t, const Record& r, bool models) {
  const nlohmann::json& s = r.extra.token_times;
  std::string slope = "-";
  if (s.contains("slope_ci95_us") && s["slope_ci95_us"].is_array())
    slope = fmt::format("{:+.2f} [{:+.2f}, {:+.2f}]", field(s, "slope_us_per_position"),
                        s["slope_ci95_us"][0].get<double>(), s["slope_ci95_us"][1].get<double>());
  std::vector<std::string> row = {point_label(r.params, models),
                                  fmt::format("{}", static_cast<int64_t>(field(s, "tokens"))),
                                  fmt::format("{:.3f}", field(s, "p50_ms")),
                                  fmt::format("{:.3f}", field(s, "p90_ms")),
                                  fmt::format("{:.3f}", field(s, "p99_ms")),
                                  fmt::format("{:.3f}", field(s, "max_ms")),
                                  slope};
  row.push_back(s.contains("ab") ? effect_text(s["ab"]) : "");
  const nlohmann::json& pass = r.extra.routing_pass;
  const bool traced = pass.is_object();
  row.push_back(traced ? effect_text(pass.value("tap_speed", nlohmann::json())) : "");
  if (traced && !pass.value("same_tokens_and_positions", false))
    row.back() += " (passes of other tokens!)";
  t.add_row(std::move(row));
}

}  // namespace

std::string token_times_markdown(const LoadedRun& run) {
  const bool models = several_models(run);
  MarkdownTable t({"point", "tokens", "p50 ms", "p90 ms", "p99 ms", "max ms",
                   "slope us/position [95%]", "whole-only vs per-token timing",
                   "routing tap: traced pass vs sample"});
  for (const Record& r : run.records)
    if (r.ok && r.extra.token_times.is_object()) add_row(t, r, models);
  if (t.rows() == 0) return "";
  return "## Per-token decode times\n\n"
         "Each generated token's time in the TG samples (tokens.jsonl; `moesweep export RUN "
         "--format tokens-csv`). Slope: least squares against the token's position in its "
         "sample, an intercept per sample. The last two columns, where measured: how much faster "
         "the samples timed whole only ran (--token-times ab), and the traced passes against the "
         "samples (--trace-routing), with 95% intervals and the pairs' MDE.\n\n" +
         t.render() + "\n";
}

void add_token_plots(const LoadedRun& run, nlohmann::json& plot_data) {
  if (run.run_dir.empty()) return;
  const std::filesystem::path path = std::filesystem::path(run.run_dir) / kTokenFileName;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec) || std::filesystem::file_size(path, ec) == 0)
    return;
  const TokenFile file = read_token_file(path);
  std::map<std::string, const Record*> by_key;
  for (const Record& r : run.records) by_key[r.params.key_string()] = &r;
  const bool models = several_models(run);
  std::map<std::string, std::vector<std::vector<double>>> by_position;  // label -> position -> ms
  std::map<std::string, std::vector<double>> all;                       // label -> ms
  for (const TokenCall& c : file.calls) {
    const auto it = by_key.find(c.key);
    if (!c.timed() || c.ns.empty() || it == by_key.end()) continue;
    const std::string label = point_label(it->second->params, models);
    auto& pos = by_position[label];
    if (pos.size() < c.ns.size()) pos.resize(c.ns.size());
    for (size_t i = 0; i < c.ns.size(); ++i) {
      pos[i].push_back(static_cast<double>(c.ns[i]) * 1e-6);
      all[label].push_back(static_cast<double>(c.ns[i]) * 1e-6);
    }
  }
  if (all.empty()) return;
  nlohmann::json series = nlohmann::json::array();
  for (auto& [label, pos] : by_position) {
    nlohmann::json s = {{"label", label}};
    for (size_t i = 0; i < pos.size(); ++i) {
      std::sort(pos[i].begin(), pos[i].end());
      s["x"].push_back(i), s["y"].push_back(quantile_sorted(pos[i], 0.5));
    }
    series.push_back(std::move(s));
  }
  plot_data["xy"].push_back({{"file", "token_time_vs_position.png"},
                             {"title", "per-token decode time against position in the sample"},
                             {"xlabel", "position of the token in its TG sample"},
                             {"ylabel", "decode time (ms, median over the point's samples)"},
                             {"series", series}});
  nlohmann::json panels = nlohmann::json::array();
  for (const auto& [label, ms] : all) {
    if (panels.size() == kMaxHistogramPanels) break;
    const size_t step = (ms.size() + kMaxHistogramValues - 1) / kMaxHistogramValues;
    nlohmann::json values = nlohmann::json::array();
    for (size_t i = 0; i < ms.size(); i += step) values.push_back(ms[i]);
    panels.push_back({{"label", label}, {"ms", values}, {"tokens", ms.size()}});
  }
  plot_data["token_hist"] = {{"file", "token_latency_hist.png"},
                             {"panels", panels},
                             {"left_out", all.size() - panels.size()}};
}

}  // namespace moesweep
