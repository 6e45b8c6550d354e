#pragma once
// Open-loop arrivals as vLLM's `bench serve` draws them: the gaps between
// requests are gamma(shape = burstiness, scale = 1 / (rate * burstiness)),
// so the mean gap is 1 / rate; burstiness 1 is a Poisson process, below 1
// burstier, above 1 more even. Drawn from std::mt19937_64's raw output with
// samplers of our own (not std::gamma_distribution, whose algorithm is the
// standard library's), so a seed gives the same schedule on every build.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace moesweep {

inline constexpr double kInfiniteRate = std::numeric_limits<double>::infinity();
// --burstiness bounds: below 0.01 a gap is 0 or huge; above 1000 it is 1/rate.
inline constexpr double kMinBurstiness = 0.01, kMaxBurstiness = 1000;

struct ArrivalSpec {
  double rate = 1;  // requests per second; kInfiniteRate: all at once
  double burstiness = 1;
  uint64_t seed = 1;
};

// Draws from a seed, the same on every standard library: arrival gaps here,
// request lengths in serve/length_dist.hpp.
class SeededDraws {
 public:
  explicit SeededDraws(uint64_t seed) : rng_(seed) {}
  double uniform();            // (0, 1)
  double normal();             // mean 0, sd 1
  double gamma(double shape);  // scale 1
  // A gap of mean 1: gamma(shape, 1 / shape); shape 1 is exponential.
  double unit_gap(double shape);

 private:
  std::mt19937_64 rng_;
};

// Seconds from the start of each arrival: at most `max_requests`, each
// before `max_duration_s` (<= 0: no limit; one of the two bounds the list).
// The same seed and burstiness give the same unit gaps at every rate (a gap
// at rate R is the unit gap / R), so a sweep's rates differ only in rate.
std::vector<double> arrival_times(const ArrivalSpec& spec, size_t max_requests,
                                  double max_duration_s);

}  // namespace moesweep
