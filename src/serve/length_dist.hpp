#pragma once
// A length in tokens drawn per request of an open-loop workload: a fixed
// number, uniform in [min, max], or lognormal (median, sigma) clipped to
// [min, max]. Written in a workload file as a number (fixed) or an object:
//   {"dist": "uniform", "min": 64, "max": 192}
//   {"dist": "lognormal", "median": 128, "sigma": 0.6, "min": 16, "max": 1024}
// Request i's length depends only on the seed and i (serve/arrival_schedule's
// SeededDraws), so two runs send the same lengths.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace moesweep {

struct LengthDist {
  std::string dist = "fixed";  // fixed | uniform | lognormal
  int min = 1, max = 1;        // fixed: min == max
  double median = 0, sigma = 0;
  int draw(uint64_t seed, uint64_t index) const;
  nlohmann::json to_json() const;
};

// `key` of workload file `origin` (absent: `fallback`); each length in
// [lo, hi]. UserError naming the file and key.
LengthDist read_length_dist(const nlohmann::json& workload, const char* key, int lo, int hi,
                            int fallback, const std::string& origin);

}  // namespace moesweep
