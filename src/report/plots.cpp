#include "report/plots.hpp"

#include <fmt/format.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>

#include "report/series.hpp"
#include "report/working_set.hpp"
#include "util/paths.hpp"

namespace moesweep {
namespace {

// The decode roofline (tokens/s the measured bandwidth allows) a sweep wrote
// into the record, or null.
nlohmann::json roofline_tg(const Record& r) {
  if (r.extra.roofline && r.extra.roofline->roofline_tg) return *r.extra.roofline->roofline_tg;
  return nullptr;
}

// Error bars are the 95% confidence half-width of the mean (0 with one sample).
// "roofline_tg" only when some record carries one.
nlohmann::json series_json(const Series& s, Axis axis, const std::string& prefix) {
  nlohmann::json j;
  j["label"] = prefix + s.label;
  j["reference"] = !prefix.empty();
  bool any_roofline = false;
  for (const Record* r : s.points) {
    j["x"].push_back(axis == Axis::kNKv ? r->params.n_kv : r->params.n_threads);
    j["s_pp"].push_back(r->pp.speed.mean);
    j["s_pp_err"].push_back(r->pp.speed.ci95);
    j["s_tg"].push_back(r->tg.speed.mean);
    j["s_tg_err"].push_back(r->tg.speed.ci95);
    j["roofline_tg"].push_back(roofline_tg(*r));
    any_roofline = any_roofline || !j["roofline_tg"].back().is_null();
  }
  if (!any_roofline) j.erase("roofline_tg");
  return j;
}

// Thread counts are whole numbers: the plot's ticks are the counts measured
// (matplotlib's own choice puts ticks at 1.2, 1.4, ...).
nlohmann::json thread_ticks(const nlohmann::json& series) {
  std::set<int> ticks;
  for (const auto& s : series)
    if (s.contains("x"))
      for (const auto& x : s["x"]) ticks.insert(x.get<int>());
  return ticks;
}

nlohmann::json counter_series(const std::vector<Series>& by_nkv) {
  nlohmann::json out = nlohmann::json::array();
  std::set<std::string> metrics;
  for (const Series& s : by_nkv) {
    for (const Record* r : s.points) {
      for (const auto* phase : {&r->pp, &r->tg}) {
        if (!phase->counters.is_object()) continue;
        for (const auto& [name, value] : phase->counters.items()) {
          if (value.is_number()) metrics.insert((phase == &r->pp ? "pp:" : "tg:") + name);
        }
      }
    }
  }
  for (const std::string& tagged : metrics) {
    const bool pp = tagged.rfind("pp:", 0) == 0;
    const std::string name = tagged.substr(3);
    nlohmann::json m;
    m["metric"] = name;
    m["phase"] = pp ? "PP" : "TG";
    for (const Series& s : by_nkv) {
      nlohmann::json line;
      line["label"] = s.label;
      for (const Record* r : s.points) {
        const auto& c = (pp ? r->pp : r->tg).counters;
        if (!c.is_object() || !c.contains(name) || !c[name].is_number()) continue;
        line["x"].push_back(r->params.n_kv);
        line["y"].push_back(c[name].get<double>());
      }
      if (line.contains("x")) m["series"].push_back(line);
    }
    out.push_back(m);
  }
  return out;
}

// "epyc9175f-...-threads.jsonl" -> "ref epyc9175f-...-threads: "
std::string reference_prefix(const LoadedRun& ref) {
  std::string name = ref.label;
  if (name.size() > 6 && name.ends_with(".jsonl")) name.resize(name.size() - 6);
  return "ref " + name + ": ";
}

}  // namespace

nlohmann::json plot_data(const LoadedRun& run, const std::vector<LoadedRun>& references) {
  nlohmann::json data;
  data["title"] = run.label;
  data["nkv"] = nlohmann::json::array();
  data["threads"] = nlohmann::json::array();
  const auto by_nkv = group_by_axis(run.records, Axis::kNKv);
  for (const Series& s : by_nkv) data["nkv"].push_back(series_json(s, Axis::kNKv, ""));
  for (const LoadedRun& ref : references) {
    for (const Series& s : group_by_axis(ref.records, Axis::kNKv)) {
      data["nkv"].push_back(series_json(s, Axis::kNKv, reference_prefix(ref)));
    }
  }
  if (distinct_axis_values(run.records, Axis::kThreads) > 1) {
    for (const Series& s : group_by_axis(run.records, Axis::kThreads)) {
      data["threads"].push_back(series_json(s, Axis::kThreads, ""));
    }
    for (const LoadedRun& ref : references) {
      if (distinct_axis_values(ref.records, Axis::kThreads) < 2) continue;
      for (const Series& s : group_by_axis(ref.records, Axis::kThreads)) {
        data["threads"].push_back(series_json(s, Axis::kThreads, reference_prefix(ref)));
      }
    }
  }
  data["threads_ticks"] = thread_ticks(data["threads"]);
  data["counters"] = counter_series(by_nkv);
  if (nlohmann::json ws = working_set_data(run.records); !ws.is_null()) data["working_set"] = ws;
  return data;
}

std::filesystem::path plot_script_path() {
  if (const char* s = std::getenv("MOESWEEP_PLOT_SCRIPT"); s && *s) return s;
  return profiles_dir().parent_path() / "scripts" / "plot";
}

PlotOutcome draw_plots(const nlohmann::json& data, const std::filesystem::path& out_dir) {
  PlotOutcome outcome;
  std::filesystem::create_directories(out_dir);
  const auto data_file = out_dir / "plot_data.json";
  std::ofstream(data_file) << data.dump(1) << "\n";
  const auto script = plot_script_path();
  if (!std::filesystem::exists(script)) {
    outcome.problem =
        fmt::format("plot script '{}' not found (set MOESWEEP_PLOT_SCRIPT)", script.string());
    return outcome;
  }
  // The script prints one PNG path per line; its stderr goes to a log next to them.
  const auto log = out_dir / "plot.log";
  const std::string cmd = fmt::format("'{}' '{}' '{}' 2>'{}'", script.string(), data_file.string(),
                                      out_dir.string(), log.string());
  std::fflush(stdout);
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) {
    outcome.problem = "cannot start " + script.string();
    return outcome;
  }
  std::string printed;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe)) printed += buf;
  const int status = pclose(pipe);
  size_t start = 0;
  while (start < printed.size()) {
    size_t end = printed.find('\n', start);
    if (end == std::string::npos) end = printed.size();
    std::filesystem::path png = printed.substr(start, end - start);
    std::error_code ec;
    if (!png.empty() && std::filesystem::file_size(png, ec) > 0 && !ec) outcome.pngs.push_back(png);
    start = end + 1;
  }
  if (outcome.pngs.empty()) {
    std::ifstream in(log);
    std::string first;
    std::getline(in, first);
    outcome.problem = fmt::format("scripts/plot exited with {} and drew nothing{}",
                                  WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                                  first.empty() ? "" : ": " + first);
  }
  return outcome;
}

}  // namespace moesweep
