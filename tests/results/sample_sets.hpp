#pragma once
// Deterministic sample sets and records for the results tests. Normal draws
// come from our own Box-Muller over mt19937_64, so a seed gives the same
// samples on every standard library (std::normal_distribution does not).
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "results/record.hpp"

namespace moesweep::test {

inline std::vector<double> normal_samples(uint64_t seed, int n, double mean, double sd) {
  std::mt19937_64 rng(seed);
  std::vector<double> out;
  while (static_cast<int>(out.size()) < n) {
    const double u1 = (static_cast<double>(rng() >> 11) + 1) / 9007199254740993.0;
    const double u2 = static_cast<double>(rng() >> 11) / 9007199254740992.0;
    const double r = std::sqrt(-2 * std::log(u1));
    out.push_back(mean + sd * r * std::cos(2 * M_PI * u2));
    if (static_cast<int>(out.size()) < n) out.push_back(mean + sd * r * std::sin(2 * M_PI * u2));
  }
  return out;
}

// A finished point of a tiny-twin-like sweep with the given speed samples.
inline Record make_record(const std::string& run_id, int index, int threads, int n_kv,
                          const std::vector<double>& pp_ts, const std::vector<double>& tg_ts) {
  Record r;
  r.run_id = run_id;
  r.point_index = index;
  PointParams& p = r.params;
  p.model_path = "/models/" + run_id + "/kimi-k2.5-tiny-Q4_K_S.gguf";  // differs per run on purpose
  p.model_name = "kimi-k2.5-tiny";
  p.model_type = "Q4_K - Small";
  p.quant = "Q4_K_S";
  p.n_ctx = 1024;
  p.n_batch = 256;
  p.n_ubatch = 256;
  p.type_k = p.type_v = "q8_0";
  p.flash_attn = 1;
  p.n_threads = p.n_threads_batch = threads;
  p.pp = 256;
  p.tg = 16;
  p.n_kv = n_kv;
  for (double v : pp_ts) {
    r.pp.tokens_per_s.push_back(v);
    r.pp.seconds.push_back(p.pp / v);
  }
  for (double v : tg_ts) {
    r.tg.tokens_per_s.push_back(v);
    r.tg.seconds.push_back(p.tg / v);
  }
  r.pp.counters = {{"task-clock-ms", 12.5 * (n_kv + 1)},
                   {"l3_hit_rate", {{"unavailable", "no cpu PMU in this VM"}}}};
  r.pp.summarize();
  r.tg.summarize();
  return r;
}

}  // namespace moesweep::test
