#pragma once
// The tests for "is the new run really slower?", all two-sided, on the kept
// samples of one point (tokens/s of each repetition).
// Unpaired (two runs, or samples that were not taken side by side):
//  - Welch's t: no equal-variance assumption; usable from 2 samples a side,
//    which matters because CI sweeps take 3 repetitions.
//  - Mann-Whitney U: no normality assumption, robust to one stray sample;
//    exact p without ties (small n), normal approximation with tie correction
//    otherwise. With 3 vs 3 samples its smallest possible p is 0.1, so it can
//    never reach alpha = 0.05 there: `auto` uses it only from 4 samples a side.
// Paired (sweep --engine a,b: the engines take turns repetition by repetition
// in ABBA order, so repetition i of A and of B ran side by side): tests on the
// per-pair log ratios d_i = log(new_i / base_i), which cancel whatever slow
// swing of the machine both members of a pair shared.
//  - paired t: the one-sample t test of mean(d) = 0; from 2 pairs.
//  - Wilcoxon signed rank: no normality assumption; exact without ties or
//    zero differences (up to 50 pairs), normal approximation with tie and
//    continuity correction otherwise. Its smallest p is 2/2^n: with 5 pairs
//    or fewer it can never reach 0.05, so `auto` takes the paired t.
#include <string>
#include <vector>

namespace moesweep {

struct TestResult {
  double statistic = 0;  // t or U
  double p_value = 1;    // two-sided
  double dof = 0;        // the t tests (Welch: Welch-Satterthwaite; paired: pairs - 1)
  bool exact = false;    // the rank tests: exact distribution used
};

TestResult welch_t_test(const std::vector<double>& a, const std::vector<double>& b);
TestResult mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b);
// On the differences d (paired log ratios): is their mean / median zero?
TestResult paired_t_test(const std::vector<double>& d);
TestResult signed_rank_test(const std::vector<double>& d);
// d_i = log(b_i / a_i) for the first min(|a|, |b|) pairs (speeds, all > 0).
std::vector<double> pair_log_ratios(const std::vector<double>& a, const std::vector<double>& b);

enum class TestKind { kAuto, kWelch, kMannWhitney, kPairedT, kSignedRank };
// auto|welch|mwu|paired-t|signed-rank; UserError otherwise
TestKind parse_test_kind(const std::string& name);
bool is_paired(TestKind kind);
// What `auto` (or a paired test asked for) runs on samples of these sizes:
// `paired` says whether they are pairs (same count, taken side by side); a
// paired test asked for on samples that are not pairs runs auto's unpaired one.
// Unpaired, auto takes Mann-Whitney from 4 samples a side where its smallest
// possible p is below `alpha` (the cell's, after the family's control), Welch
// otherwise.
TestKind resolve_test_kind(TestKind kind, size_t n_a, size_t n_b, bool paired = false,
                           double alpha = 0.05);
const char* test_kind_name(TestKind kind);
// a = base samples, b = new samples; a paired test uses pair_log_ratios(a, b).
TestResult run_test(TestKind resolved, const std::vector<double>& a, const std::vector<double>& b);

// Student t CDF (regularized incomplete beta); exposed for the tests.
double student_t_cdf(double t, double dof);
// Standard normal CDF.
double normal_cdf(double z);

}  // namespace moesweep
