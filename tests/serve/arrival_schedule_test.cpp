// The open-loop arrival schedule: seeded Poisson and gamma gaps match their
// distributions (a Kolmogorov-Smirnov test on 10,000 draws with a fixed seed:
// deterministic, it cannot flake), and the same test tells a wrong
// distribution apart, so it can fail. The schedule is the same for the same
// seed, scales with the rate, and is bounded by count and duration.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "serve/arrival_schedule.hpp"

namespace moesweep {
namespace {

constexpr int kDraws = 10000;
// The KS statistic's critical value at alpha = 0.001 for n draws: 1.949 / sqrt(n).
const double kCritical = 1.949 / std::sqrt(double(kDraws));

// The regularized lower incomplete gamma function P(a, x) (Numerical
// Recipes' series and continued fraction): the gamma distribution's CDF.
double gamma_p(double a, double x) {
  if (x <= 0) return 0;
  const double log_front = a * std::log(x) - x - std::lgamma(a);
  if (x < a + 1) {  // series
    double sum = 1 / a, term = sum;
    for (int n = 1; n < 1000 && std::fabs(term) > 1e-15 * std::fabs(sum); ++n) {
      term *= x / (a + n);
      sum += term;
    }
    return sum * std::exp(log_front);
  }
  double b = x + 1 - a, c = 1e300, d = 1 / b, h = d;  // continued fraction (Lentz)
  for (int i = 1; i < 1000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    c = b + an / c;
    d = 1 / (std::fabs(d) < 1e-300 ? 1e-300 : d);
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) < 1e-15) break;
  }
  return 1 - std::exp(log_front) * h;
}

// The gaps of a schedule at `rate` (the first arrival's gap from 0 included).
std::vector<double> gaps(double rate, double burstiness, uint64_t seed) {
  const auto t = arrival_times({rate, burstiness, seed}, kDraws, 0);
  std::vector<double> g;
  for (size_t i = 0; i < t.size(); ++i) g.push_back(t[i] - (i ? t[i - 1] : 0.0));
  return g;
}

// The KS statistic of `draws` against the gamma(shape, scale) CDF.
double ks_gamma(std::vector<double> draws, double shape, double scale) {
  std::sort(draws.begin(), draws.end());
  double d = 0;
  const double n = draws.size();
  for (size_t i = 0; i < draws.size(); ++i) {
    const double f = gamma_p(shape, draws[i] / scale);
    d = std::max({d, (i + 1) / n - f, f - i / n});
  }
  return d;
}

TEST(ArrivalSchedule, PoissonGapsAreExponentialWithMeanOneOverTheRate) {
  const double rate = 2.5;
  const auto g = gaps(rate, 1, 20240611);
  ASSERT_EQ(g.size(), size_t(kDraws));
  EXPECT_LT(ks_gamma(g, 1, 1 / rate), kCritical);  // exponential = gamma(1, 1/rate)
}

TEST(ArrivalSchedule, GammaGapsHaveTheBurstinessAsTheirShape) {
  for (const double b : {0.3, 0.5, 2.0, 8.0}) {
    const double rate = 4;
    const auto g = gaps(rate, b, 77);
    EXPECT_LT(ks_gamma(g, b, 1 / (rate * b)), kCritical) << "burstiness " << b;
  }
}

TEST(ArrivalSchedule, TheTestTellsAWrongDistributionApart) {
  // Bursty gaps (shape 0.5) are not exponential, and exponential gaps are
  // not gamma(4): the KS statistic says so, far past its critical value.
  EXPECT_GT(ks_gamma(gaps(1, 0.5, 77), 1, 1), 3 * kCritical);
  EXPECT_GT(ks_gamma(gaps(1, 1, 77), 4, 0.25), 3 * kCritical);
  // And the right shape at the wrong rate.
  EXPECT_GT(ks_gamma(gaps(1, 1, 77), 1, 1.2), 3 * kCritical);
}

TEST(ArrivalSchedule, TheSameSeedGivesTheSameScheduleAndRatesOnlyScaleIt) {
  const auto a = arrival_times({1, 1, 5}, 100, 0), b = arrival_times({1, 1, 5}, 100, 0);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, arrival_times({1, 1, 6}, 100, 0));
  const auto fast = arrival_times({4, 1, 5}, 100, 0);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(fast[i], a[i] / 4, 1e-9);
  for (size_t i = 1; i < a.size(); ++i) EXPECT_GT(a[i], a[i - 1]);
}

TEST(ArrivalSchedule, CountAndDurationBoundIt) {
  EXPECT_EQ(arrival_times({10, 1, 1}, 7, 0).size(), 7u);
  const auto t = arrival_times({10, 1, 1}, 100000, 3.0);  // about 30 arrivals in 3 s
  EXPECT_GT(t.size(), 10u);
  EXPECT_LT(t.size(), 60u);
  EXPECT_LT(t.back(), 3.0);
  const auto all = arrival_times({kInfiniteRate, 1, 1}, 12, 0);  // all at once
  EXPECT_EQ(all, std::vector<double>(12, 0.0));
}

}  // namespace
}  // namespace moesweep
