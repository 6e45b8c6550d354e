#pragma once
// What a comparison could have seen: the power of the t tests and the minimum
// detectable effect (MDE) of a cell, given its samples' spread and count.
//
// The MDE is the smallest true change that a two-sided test at `alpha` would
// call significant with probability `power` (90% here), for an estimate whose
// standard error is `se` with `dof` degrees of freedom. For the t tests it is
// exact under normal theory: the noncentrality at which the noncentral t
// distribution puts `power` beyond the critical values. The rank tests
// (Mann-Whitney, signed rank) are taken at their asymptotic efficiency
// against the t test (3/pi for normal samples), and as unable to detect
// anything where their smallest possible p is not below alpha (3 against 3
// samples, or 5 pairs or fewer, at 0.05).
//
// Effects are on the log scale of speeds: a log ratio d is the slowdown
// 1 - exp(-d) (mde_slowdown), which is what the gate's --threshold means.
#include <cstddef>

#include "results/significance.hpp"

namespace moesweep {

inline constexpr double kMdePower = 0.90;  // the power every printed MDE is at

// Inverse of student_t_cdf (p in (0, 1)); dof above ~1e7 is the normal's.
double student_t_quantile(double p, double dof);
// Power of the two-sided one- or two-sample t test at `alpha` when the true
// effect is `ncp` standard errors: P(|T'| > t_{1-alpha/2, dof}), T' noncentral t.
double t_test_power(double ncp, double dof, double alpha);
// The noncentrality (effect in standard errors) at which that power is
// `power`; infinity when it is out of reach (dof < 1).
double mde_factor(double dof, double alpha, double power = kMdePower);

// The spread behind one cell's test, as the MDE needs it.
struct CellSpread {
  double se = 0;   // standard error of the log ratio
  double dof = 0;  // its degrees of freedom
  size_t n_a = 0;  // samples (or pairs) on each side: what a rank test's smallest p depends on
  size_t n_b = 0;
};
// The MDE as a log ratio (infinity: this test cannot reach p < alpha here).
double cell_mde(TestKind resolved, const CellSpread& spread, double alpha,
                double power = kMdePower);
// The smallest two-sided p a rank test can give for these sizes (no ties):
// 2 / C(n_a + n_b, n_a) for Mann-Whitney, 2 / 2^n for the signed rank; 0 for
// the t tests.
double smallest_p(TestKind resolved, size_t n_a, size_t n_b);

// A log-ratio effect as the slowdown it means (0.0513 -> 0.05); 1 for infinity.
double mde_slowdown(double log_effect);
// The log-ratio effect of a slowdown fraction (0.05 -> 0.0513).
double log_effect_of_slowdown(double fraction);

}  // namespace moesweep
