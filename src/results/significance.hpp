#pragma once
// Two-sample tests for "is the new run really slower?". Both work on the kept
// samples of one point (tokens/s of each repetition), two-sided.
//  - Welch's t: no equal-variance assumption; usable from 2 samples a side,
//    which matters because CI sweeps take 3 repetitions.
//  - Mann-Whitney U: no normality assumption, robust to one stray sample;
//    exact p without ties (small n), normal approximation with tie correction
//    otherwise. With 3 vs 3 samples its smallest possible p is 0.1, so it can
//    never reach alpha = 0.05 there: `auto` uses it only from 4 samples a side.
#include <string>
#include <vector>

namespace moesweep {

struct TestResult {
  double statistic = 0;  // t or U
  double p_value = 1;    // two-sided
  double dof = 0;        // Welch only (Welch-Satterthwaite)
  bool exact = false;    // Mann-Whitney: exact distribution used
};

TestResult welch_t_test(const std::vector<double>& a, const std::vector<double>& b);
TestResult mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b);

enum class TestKind { kAuto, kWelch, kMannWhitney };
TestKind parse_test_kind(const std::string& name);  // auto|welch|mwu; UserError otherwise
// What `auto` picks for samples of these sizes.
TestKind resolve_test_kind(TestKind kind, size_t n_a, size_t n_b);
const char* test_kind_name(TestKind kind);
TestResult run_test(TestKind resolved, const std::vector<double>& a, const std::vector<double>& b);

// Student t CDF (regularized incomplete beta); exposed for the tests.
double student_t_cdf(double t, double dof);

}  // namespace moesweep
