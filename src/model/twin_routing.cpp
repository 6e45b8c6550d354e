#include "model/twin_routing.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "util/hash.hpp"

namespace moesweep {
namespace {

// The router logits of `samples` tokens: ~N(0,1) each (Box-Muller), fixed seed.
std::vector<float> model_logits(int64_t samples, int64_t experts) {
  std::vector<float> z(static_cast<size_t>(samples * experts));
  uint64_t state = 0x5eed5eed;
  const double two_pi = 6.283185307179586;
  for (size_t i = 0; i < z.size(); ++i) {
    const double u1 = ((splitmix64(state) >> 11) + 1.0) * (1.0 / 9007199254740993.0);
    const double u2 = (splitmix64(state) >> 11) * (1.0 / 9007199254740992.0);
    z[i] = static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(two_pi * u2));
  }
  return z;
}

// What the engine adds the bias to: the gate's probabilities (deepseek2).
std::vector<float> gate_probs(const std::vector<float>& z, int64_t experts, bool sigmoid) {
  std::vector<float> p(z.size());
  for (size_t row = 0; row < z.size(); row += static_cast<size_t>(experts)) {
    const float* in = z.data() + row;
    float* out = p.data() + row;
    if (sigmoid) {
      for (int64_t e = 0; e < experts; ++e) out[e] = 1.0f / (1.0f + std::exp(-in[e]));
      continue;
    }
    const float top = *std::max_element(in, in + experts);
    float sum = 0;
    for (int64_t e = 0; e < experts; ++e) sum += out[e] = std::exp(in[e] - top);
    for (int64_t e = 0; e < experts; ++e) out[e] /= sum;
  }
  return p;
}

struct Calibration {
  std::vector<float> base;  // per token and expert: gate probability or logit
  int64_t samples = 0, experts = 0, used = 0;
  bool additive = true;  // score = base + param (bias); else base * param (row scale)
};

// Selection frequency of each expert: share of tokens whose top k include it.
std::vector<double> selection_frequency(const Calibration& c, const std::vector<float>& param) {
  std::vector<int64_t> counts(static_cast<size_t>(c.experts), 0);
  std::vector<float> score(static_cast<size_t>(c.experts));
  std::vector<int> order(static_cast<size_t>(c.experts));
  for (int64_t t = 0; t < c.samples; ++t) {
    const float* b = c.base.data() + t * c.experts;
    for (int64_t e = 0; e < c.experts; ++e)
      score[e] = c.additive ? b[e] + param[e] : b[e] * param[e];
    std::iota(order.begin(), order.end(), 0);
    std::nth_element(order.begin(), order.begin() + (c.used - 1), order.end(),
                     [&](int a, int x) { return score[a] > score[x]; });
    for (int64_t i = 0; i < c.used; ++i) ++counts[order[i]];
  }
  std::vector<double> f(counts.size());
  for (size_t e = 0; e < f.size(); ++e) f[e] = static_cast<double>(counts[e]) / c.samples;
  return f;
}

// Moves each parameter by the log of (asked / reached), with a shrinking step:
// a bias shifts the score additively, a row scale multiplicatively.
std::vector<float> fit(const Calibration& c, const std::vector<double>& target) {
  std::vector<float> param(static_cast<size_t>(c.experts), c.additive ? 0.0f : 1.0f);
  const int iterations = 60;
  const double floor = 0.5 / static_cast<double>(c.samples);
  for (int it = 0; it < iterations; ++it) {
    const std::vector<double> f = selection_frequency(c, param);
    const double step = (c.additive ? 0.08 : 0.3) * (1.0 - 0.8 * it / iterations);
    for (size_t e = 0; e < param.size(); ++e) {
      const double ratio = std::clamp(std::log(target[e] / std::max(f[e], floor)), -2.0, 2.0);
      if (c.additive) {
        param[e] = static_cast<float>(param[e] + step * ratio);
      } else {
        param[e] = static_cast<float>(std::clamp(param[e] * std::exp(step * ratio), 0.02, 50.0));
      }
    }
  }
  return param;
}

}  // namespace

std::vector<double> zipf_selection_targets(int64_t experts, int64_t used, double s) {
  std::vector<double> w(static_cast<size_t>(std::max<int64_t>(experts, 0)));
  for (size_t e = 0; e < w.size(); ++e) w[e] = std::pow(static_cast<double>(e + 1), -s);
  // Water-filling: find c with sum(min(1, c w_e)) = k by bisection (monotone in c).
  double lo = 0, hi = 1;
  auto total = [&](double c) {
    double sum = 0;
    for (double x : w) sum += std::min(1.0, c * x);
    return sum;
  };
  while (total(hi) < static_cast<double>(used) && hi < 1e300) hi *= 2;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (total(mid) < static_cast<double>(used) ? lo : hi) = mid;
  }
  for (double& x : w) x = std::min(1.0, hi * x);
  return w;
}

RoutingSkew calibrate_routing_skew(const ModelProfile& profile, double s) {
  const ModelShape& m = profile.shape;
  RoutingSkew out;
  out.target = zipf_selection_targets(m.experts, m.experts_used, s);
  if (s <= 0 || m.experts <= m.experts_used) return out;  // nothing to choose between
  Calibration c;
  c.experts = m.experts;
  c.used = m.experts_used;
  // About two million scores per pass: a second or so for the whole fit.
  c.samples = std::clamp<int64_t>((int64_t{1} << 21) / m.experts, 512, 4096);
  const std::vector<float> z = model_logits(c.samples, c.experts);
  c.additive = profile.arch == "deepseek2";
  c.base = c.additive ? gate_probs(z, c.experts, profile.gating == "sigmoid") : z;
  const std::vector<float> param = fit(c, out.target);
  (c.additive ? out.bias : out.row_scale) = param;
  out.modelled = selection_frequency(c, param);
  return out;
}

}  // namespace moesweep
