#include "hw/cache_knees.hpp"

#include <algorithm>
#include <cmath>

namespace moesweep {
namespace {

// log of the value, signed so that slower is always larger
double slowness(double value, bool higher_is_slower) {
  const double v = std::log(std::max(value, 1e-12));
  return higher_is_slower ? v : -v;
}

// The size, interpolated in log-size, where the curve between points i and
// i+1 reaches `level` (both in slowness units).
uint64_t crossing(const std::vector<CurveSample>& c, const std::vector<double>& y, size_t i,
                  double level) {
  const double x0 = std::log(static_cast<double>(c[i].bytes)),
               x1 = std::log(static_cast<double>(c[i + 1].bytes));
  const double w = y[i + 1] > y[i] ? (level - y[i]) / (y[i + 1] - y[i]) : 0.5;
  return static_cast<uint64_t>(std::llround(std::exp(x0 + std::clamp(w, 0.0, 1.0) * (x1 - x0))));
}

}  // namespace

std::vector<CacheKnee> find_knees(const std::vector<CurveSample>& curve, bool higher_is_slower) {
  std::vector<double> y;
  for (const CurveSample& s : curve) y.push_back(slowness(s.value, higher_is_slower));
  // steep: slower by more than kSteepPerDoubling per doubling of the working set
  auto steep = [&](size_t i) {
    const double doublings =
        std::log2(static_cast<double>(curve[i + 1].bytes) / static_cast<double>(curve[i].bytes));
    return doublings > 0 && (y[i + 1] - y[i]) / doublings > std::log(kSteepPerDoubling);
  };
  std::vector<CacheKnee> knees;
  size_t i = 0;
  while (i + 1 < curve.size()) {
    if (!steep(i)) {
      ++i;
      continue;
    }
    size_t end = i + 1;  // the run of steep segments is [i, end]
    while (end + 1 < curve.size() && steep(end)) ++end;
    if (y[end] - y[i] >= std::log(kMinKneeRatio)) {
      const double middle = (y[i] + y[end]) / 2;
      size_t j = i;
      while (j + 1 < end && y[j + 1] < middle) ++j;
      knees.push_back(
          {crossing(curve, y, j, middle), curve[i].value, curve[end].value, curve[i].bytes});
    }
    i = end;
  }
  return knees;
}

uint64_t usable_llc_bytes(const std::vector<CacheKnee>& knees, uint64_t private_cache_bytes) {
  const CacheKnee* biggest = nullptr;
  for (const CacheKnee& k : knees)
    if (k.before_bytes > private_cache_bytes && k.before > 0 &&
        (!biggest || k.after / k.before > biggest->after / biggest->before))
      biggest = &k;
  return biggest ? biggest->bytes : 0;
}

}  // namespace moesweep
