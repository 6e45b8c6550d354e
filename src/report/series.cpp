#include "report/series.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "results/point_fields.hpp"

namespace moesweep {
namespace {

// The fields that may appear in a label (point_fields.cpp says which).
const std::vector<const PointField*>& fields() {
  static const std::vector<const PointField*> list = [] {
    std::vector<const PointField*> v;
    for (const PointField& f : point_fields()) {
      if (f.label) v.push_back(&f);
    }
    return v;
  }();
  return list;
}

bool on_axis(const PointField& f, Axis axis) {
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
    for (const Record* r : ok) values.insert(field_label(*fields()[f], r->params));
    varies[f] = values.size() > 1;
  }
  // threads_batch that just follows threads adds nothing to a label.
  bool batch_follows = true;
  for (const Record* r : ok) {
    batch_follows = batch_follows && (r->params.n_threads_batch == r->params.n_threads ||
                                      r->params.n_threads_batch == 0);
  }
  for (size_t f = 0; f < fields().size(); ++f) {
    if (batch_follows && fields()[f]->member == FieldMember(&PointParams::n_threads_batch))
      varies[f] = false;
  }
  // n_kv is the cell, always off the key for the threads axis too: a threads
  // line at each depth would be one point long only when depths also vary.
  std::map<std::string, size_t> index;
  std::vector<Series> series;
  for (const Record* r : ok) {
    std::string key, label;
    for (size_t f = 0; f < fields().size(); ++f) {
      if (on_axis(*fields()[f], axis)) continue;
      const std::string v = field_label(*fields()[f], r->params);
      key += v + '\x1f';
      if (varies[f])
        label += fmt::format("{}{}={}", label.empty() ? "" : " ", fields()[f]->label, v);
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
