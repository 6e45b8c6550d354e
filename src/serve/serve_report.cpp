#include "serve/serve_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "report/plots.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;

nlohmann::json figure(const char* file, const char* title, const char* xlabel, const char* ylabel) {
  return {{"file", file},
          {"title", title},
          {"xlabel", xlabel},
          {"ylabel", ylabel},
          {"series", nlohmann::json::array()}};
}

std::string label_of(const std::string& config, const std::string& workload, bool many) {
  return many ? fmt::format("{} ({})", workload, config) : workload;
}

// One line per configuration and workload, x = the request's number in it.
void by_request(const ServeRun& run, bool many, nlohmann::json& ttft, nlohmann::json& cache) {
  std::map<std::string, std::pair<nlohmann::json, nlohmann::json>> lines;  // label -> ttft, hit
  std::vector<std::string> order;
  for (const auto& r : run.requests) {
    if (!r.value("ok", false)) continue;
    const std::string label = label_of(r.value("config", "default"), r.value("workload", ""), many);
    if (!lines.count(label)) order.push_back(label);
    auto& [t, c] = lines[label];
    const int x = static_cast<int>(t.size()) + 1;
    t.push_back({x, r.value("ttft_ms", 0.0)});
    const double prompt = r.value("prompt_tokens", 0);
    c.push_back({x, prompt > 0 ? std::max(0, r.value("cache_n", 0)) / prompt : 0.0});
  }
  for (const std::string& label : order) {
    for (auto [fig, pts] :
         {std::pair{&ttft, &lines[label].first}, {&cache, &lines[label].second}}) {
      nlohmann::json s = {{"label", label}};
      for (const auto& p : *pts) {
        s["x"].push_back(p[0]);
        s["y"].push_back(p[1]);
      }
      (*fig)["series"].push_back(s);
    }
  }
}

// Open-loop workloads: a statistic against the offered rate (finite rates),
// one line per configuration and workload (and per statistic when several).
nlohmann::json by_rate(const ServeRun& run, bool many, const char* file, const char* title,
                       const char* ylabel,
                       const std::vector<std::pair<std::string, std::string>>& stats) {
  nlohmann::json fig = figure(file, title, "offered request rate (req/s)", ylabel);
  fig["integer_x"] = false;
  for (const auto& w : run.facts.workloads) {
    if (!w.contains("rates")) continue;
    for (const auto& [path, name] : stats) {
      const std::string base =
          label_of(w.value("config", "default"), w.value("workload", ""), many);
      nlohmann::json s = {{"label", stats.size() > 1 ? base + " " + name : base}};
      std::vector<std::pair<double, double>> pts;
      for (const auto& r : w["rates"]) {
        const nlohmann::json::json_pointer ptr(path);
        if (r["rate"].is_number() && r.contains(ptr) && r.at(ptr).is_number())
          pts.emplace_back(r["rate"].get<double>(), r.at(ptr).get<double>());
      }
      std::sort(pts.begin(), pts.end());  // a capacity search probes out of order
      for (const auto& [x, y] : pts) {
        s["x"].push_back(x);
        s["y"].push_back(y);
      }
      if (!pts.empty()) fig["series"].push_back(s);
    }
  }
  return fig;
}

}  // namespace

nlohmann::json serve_plot_data(const ServeRun& run) {
  const bool many = run.facts.server_configs.size() > 1;
  auto ttft =
      figure("ttft_by_request.png", "time to first token by request", "request", "TTFT (ms)");
  auto cache = figure("cache_hit_by_request.png", "prompt-cache hit by request", "request",
                      "cache_n / prompt tokens");
  by_request(run, many, ttft, cache);
  auto tps = figure("throughput_by_concurrency.png", "batch throughput by concurrency",
                    "concurrent clients", "output tokens/s");
  for (const auto& w : run.facts.workloads) {
    if (!w.contains("levels")) continue;
    nlohmann::json s = {
        {"label", label_of(w.value("config", "default"), w.value("workload", ""), many)}};
    for (const auto& l : w["levels"]) {
      s["x"].push_back(l["concurrency"]);
      s["y"].push_back(l["output_tokens_per_s"]);
    }
    tps["series"].push_back(s);
  }
  nlohmann::json data = {{"title", run.label}, {"serve", {ttft, cache}}};
  if (!tps["series"].empty()) data["serve"].push_back(tps);
  for (nlohmann::json fig :
       {by_rate(run, many, "ttft_by_rate.png", "time to first token against the request rate",
                "TTFT (ms)", {{"/ttft_ms/p50", "p50"}, {"/ttft_ms/p99", "p99"}}),
        by_rate(run, many, "tpot_by_rate.png", "time per output token against the request rate",
                "TPOT (ms)", {{"/tpot_ms/p50", "p50"}, {"/tpot_ms/p99", "p99"}}),
        by_rate(run, many, "goodput_by_rate.png", "throughput and goodput against the request rate",
                "requests/s",
                {{"/requests_per_s", "throughput"}, {"/goodput/requests_per_s", "goodput"}})})
    if (!fig["series"].empty()) data["serve"].push_back(fig);
  return data;
}

ReportOutcome write_serve_report(const ServeRun& run, const fs::path& out_dir, bool plots) {
  ReportOutcome outcome;
  if (plots) {
    const PlotOutcome p = draw_plots(serve_plot_data(run), out_dir);
    outcome.pngs = p.pngs;
    outcome.plot_problem = p.problem;
  }
  std::string md =
      fmt::format("# serve-bench run {}\n\nmodel: {}\nserver: {}\n", run.label, run.facts.model,
                  run.facts.url.empty() ? "llama-server started by serve-bench" : run.facts.url);
  for (const std::string& c : run.facts.server_configs)
    md += fmt::format("- server configuration: {}\n", c);
  md += "\n";
  for (const auto& png : outcome.pngs)
    md += fmt::format("![{}]({})\n\n", png.stem().string(), png.filename().string());
  std::ifstream tables(fs::path(run.dir) / "tables.md");
  md += std::string(std::istreambuf_iterator<char>(tables), {});
  outcome.markdown = out_dir / "report.md";
  write_file_atomically(outcome.markdown, md);
  return outcome;
}

}  // namespace moesweep
