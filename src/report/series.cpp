#include "report/series.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace moesweep {
namespace {

struct Field {
  const char* name;
  std::function<std::string(const PointParams&)> get;
  bool threads_axis;  // belongs to the threads axis
};

const std::vector<Field>& fields() {
  static const std::vector<Field> list = {
      {"model", [](const PointParams& p) { return p.model_name; }, false},
      {"quant", [](const PointParams& p) { return p.quant; }, false},
      {"load_mode", [](const PointParams& p) { return p.load_mode; }, false},
      {"ngl", [](const PointParams& p) { return std::to_string(p.n_gpu_layers); }, false},
      {"ot", [](const PointParams& p) { return p.tensor_overrides; }, false},
      {"n_ctx", [](const PointParams& p) { return std::to_string(p.n_ctx); }, false},
      {"b", [](const PointParams& p) { return std::to_string(p.n_batch); }, false},
      {"ub", [](const PointParams& p) { return std::to_string(p.n_ubatch); }, false},
      {"ctk", [](const PointParams& p) { return p.type_k; }, false},
      {"ctv", [](const PointParams& p) { return p.type_v; }, false},
      {"fa", [](const PointParams& p) { return flash_attn_name(p.flash_attn); }, false},
      {"threads", [](const PointParams& p) { return std::to_string(p.n_threads); }, true},
      {"threads_batch", [](const PointParams& p) { return std::to_string(p.n_threads_batch); },
       true},
      {"cpu_mask", [](const PointParams& p) { return p.cpu_mask; }, false},
      {"strict", [](const PointParams& p) { return std::to_string(p.cpu_strict); }, false},
      {"poll", [](const PointParams& p) { return std::to_string(p.poll); }, false},
      {"numa", [](const PointParams& p) { return p.numa; }, false},
      {"pp", [](const PointParams& p) { return std::to_string(p.pp); }, false},
      {"tg", [](const PointParams& p) { return std::to_string(p.tg); }, false},
  };
  return list;
}

bool on_axis(const Field& f, Axis axis) {
  return axis == Axis::kThreads && f.threads_axis;
}

}  // namespace

std::vector<Series> group_by_axis(const std::vector<Record>& records, Axis axis) {
  std::vector<const Record*> ok;
  for (const Record& r : records) {
    if (r.ok) ok.push_back(&r);
  }
  // Which fields vary across the run: only those go into labels.
  std::vector<bool> varies(fields().size(), false);
  for (size_t f = 0; f < fields().size(); ++f) {
    std::set<std::string> values;
    for (const Record* r : ok) values.insert(fields()[f].get(r->params));
    varies[f] = values.size() > 1;
  }
  // threads_batch that just follows threads adds nothing to a label.
  bool batch_follows = true;
  for (const Record* r : ok) {
    batch_follows = batch_follows && (r->params.n_threads_batch == r->params.n_threads ||
                                      r->params.n_threads_batch == 0);
  }
  for (size_t f = 0; f < fields().size(); ++f) {
    if (batch_follows && std::string(fields()[f].name) == "threads_batch") varies[f] = false;
  }
  // n_kv is the cell, always off the key for the threads axis too: a threads
  // line at each depth would be one point long only when depths also vary.
  std::map<std::string, size_t> index;
  std::vector<Series> series;
  for (const Record* r : ok) {
    std::string key, label;
    for (size_t f = 0; f < fields().size(); ++f) {
      if (on_axis(fields()[f], axis)) continue;
      const std::string v = fields()[f].get(r->params);
      key += v + '\x1f';
      if (varies[f]) label += fmt::format("{}{}={}", label.empty() ? "" : " ", fields()[f].name, v);
    }
    if (axis == Axis::kThreads) {
      key += std::to_string(r->params.n_kv);
      label += fmt::format("{}N_KV={}", label.empty() ? "" : " ", r->params.n_kv);
    }
    auto [it, inserted] = index.insert({key, series.size()});
    if (inserted) series.push_back({label.empty() ? "all points" : label, {}});
    series[it->second].points.push_back(r);
  }
  for (Series& s : series) {
    std::stable_sort(s.points.begin(), s.points.end(), [axis](const Record* a, const Record* b) {
      return axis == Axis::kNKv ? a->params.n_kv < b->params.n_kv
                                : a->params.n_threads < b->params.n_threads;
    });
  }
  return series;
}

size_t distinct_axis_values(const std::vector<Record>& records, Axis axis) {
  std::set<int> values;
  for (const Record& r : records) {
    if (r.ok) values.insert(axis == Axis::kNKv ? r.params.n_kv : r.params.n_threads);
  }
  return values.size();
}

}  // namespace moesweep
