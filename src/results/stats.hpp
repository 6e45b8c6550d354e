#pragma once
#include <vector>

namespace moesweep {

// Summary of one cell's samples. Every sample is kept next to it in the
// record; these are the numbers the tables print.
struct Stats {
  int n = 0;
  double mean = 0, sd = 0, median = 0, min = 0, max = 0;
  double cv = 0;    // sd / mean: the noise flag in tables
  double ci95 = 0;  // half-width of the 95% confidence interval of the mean (Student t)

  // ci95 as a percentage of the mean: what --target-ci is compared with.
  double ci95_pct() const { return mean != 0 ? 100.0 * ci95 / mean : 0; }

  static Stats of(const std::vector<double>& samples);
};

// Two-sided Student-t critical value for `dof` degrees of freedom at 95%.
double student_t95(int dof);

}  // namespace moesweep
