#include "results/stats.hpp"

#include <algorithm>
#include <cmath>

namespace moesweep {

double student_t95(int dof) {
  static const double table[] = {0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447,
                                 2.365, 2.306,  2.262, 2.228, 2.201, 2.179, 2.160,
                                 2.145, 2.131,  2.120, 2.110, 2.101, 2.093, 2.086};
  if (dof <= 0) return 0;
  if (dof <= 20) return table[dof];
  if (dof <= 30) return 2.042 + (2.086 - 2.042) * (30 - dof) / 10.0;
  return 1.96 + 0.082 * 30.0 / dof;  // approaches the normal quantile
}

Stats Stats::of(const std::vector<double>& samples) {
  Stats s;
  s.n = static_cast<int>(samples.size());
  if (s.n == 0) return s;
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  s.min = sorted.front();
  s.max = sorted.back();
  s.median = s.n % 2 ? sorted[s.n / 2] : 0.5 * (sorted[s.n / 2 - 1] + sorted[s.n / 2]);
  double sum = 0;
  for (double v : sorted) sum += v;
  s.mean = sum / s.n;
  if (s.n > 1) {
    double sq = 0;
    for (double v : sorted) sq += (v - s.mean) * (v - s.mean);
    s.sd = std::sqrt(sq / (s.n - 1));
    s.ci95 = student_t95(s.n - 1) * s.sd / std::sqrt(static_cast<double>(s.n));
  }
  s.cv = s.mean != 0 ? s.sd / s.mean : 0;
  return s;
}

}  // namespace moesweep
