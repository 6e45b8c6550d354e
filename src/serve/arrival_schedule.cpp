#include "serve/arrival_schedule.hpp"

#include <cmath>

namespace moesweep {

double SeededDraws::uniform() {
  // 53 random bits, shifted off 0: (0, 1) exactly, the same on every library.
  return (static_cast<double>(rng_() >> 11) + 0.5) * 0x1.0p-53;
}

double SeededDraws::normal() {  // Box-Muller, one of the pair
  const double u = uniform(), v = uniform();
  return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * M_PI * v);
}

// Marsaglia and Tsang (2000), "A simple method for generating gamma
// variables"; shape < 1 through gamma(shape + 1) * U^(1/shape). Each try is
// accepted with probability above 0.95: 64 tries cannot all fail in practice,
// and the loop stays bounded.
double SeededDraws::gamma(double shape) {
  if (shape < 1) return gamma(shape + 1) * std::pow(uniform(), 1.0 / shape);
  const double d = shape - 1.0 / 3, c = 1.0 / std::sqrt(9 * d);
  for (int tries = 0; tries < 64; ++tries) {
    const double x = normal(), v0 = 1 + c * x;
    if (v0 <= 0) continue;
    const double v = v0 * v0 * v0, u = uniform();
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
  return shape;  // the mean
}

double SeededDraws::unit_gap(double shape) {
  if (shape == 1) return -std::log(uniform());  // exponential: the Poisson process
  return gamma(shape) / shape;
}

std::vector<double> arrival_times(const ArrivalSpec& spec, size_t max_requests,
                                  double max_duration_s) {
  std::vector<double> out;
  if (std::isinf(spec.rate)) {  // all at once: the count bounds them
    out.assign(max_requests, 0.0);
    return out;
  }
  SeededDraws draws(spec.seed);
  double t = 0;
  while (out.size() < max_requests) {
    t += draws.unit_gap(spec.burstiness) / spec.rate;
    if (max_duration_s > 0 && t >= max_duration_s) break;
    out.push_back(t);
  }
  return out;
}

}  // namespace moesweep
