#pragma once
// Splitting a run's points into the lines of a plot or the tables of a report:
// one series per configuration, where a configuration is every parameter
// except the axis (N_KV or threads). Labels name only what varies in the run,
// so a plain threads sweep reads "threads=1", "threads=2", not the whole key.
#include <string>
#include <vector>

#include "results/record.hpp"

namespace moesweep {

enum class Axis { kNKv, kThreads };

struct Series {
  std::string label;                  // "threads=2 type_k=q8_0", or "all points"
  std::vector<const Record*> points;  // sorted along the axis
};

// Only points that finished ok. The records must outlive the series.
std::vector<Series> group_by_axis(const std::vector<Record>& records, Axis axis);

// Distinct values of the axis among ok points.
size_t distinct_axis_values(const std::vector<Record>& records, Axis axis);

}  // namespace moesweep
