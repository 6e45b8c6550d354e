// The validation's arithmetic on a run whose S_TG was made from byte-LRU's
// own hit rates: byte-LRU then predicts it exactly and is the best model;
// the calibration point is the largest pool.
#include <gtest/gtest.h>

#include "analysis/hand_trace.hpp"
#include "analysis/l3_validation.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

using test::MiB;

// 2 of `experts` quarter-MiB experts per token, a quarter-MiB hot set.
RoutingTrace trace_of(int experts, int tokens) {
  RoutingTrace t = test::random_trace(experts, MiB / 4, tokens, 2, static_cast<uint64_t>(experts));
  t.model.hot_bytes = MiB / 4;
  return t;
}

TEST(L3Validation, TheModelThatMadeTheDataFitsItAndIsNamedBest) {
  CacheMachine machine;
  machine.layout = shared_layout(1, 3 * MiB);
  const ValidationRates rates{10, 40, 10};
  std::vector<ValidationPoint> points;
  for (int experts : {32, 4, 8, 12, 16}) {  // out of order: the validation sorts by pool
    ValidationPoint p;
    p.model = "twin-" + std::to_string(experts);
    p.trace = trace_of(experts, 300);
    p.pool_bytes = experts * MiB / 4.0;
    p.routed_bytes_per_token = MiB / 2.0;
    p.hot_bytes_per_token = MiB / 4.0;
    const HitRates h = model_hits(model_block_accesses(p.trace, trace_sizes(p.trace.model)),
                                  machine, CacheModel::kByteLru);
    const double miss = p.routed_bytes_per_token * (1 - h.generation) +
                        p.hot_bytes_per_token * (1 - h.hot_generation);
    const double hit =
        p.routed_bytes_per_token * h.generation + p.hot_bytes_per_token * h.hot_generation;
    p.measured_tps = 1 / (200e-6 + miss / 10e9 + hit / 40e9);  // t0 = 200 us
    points.push_back(std::move(p));
  }
  const Validation v = validate_working_set(points, machine, 32 * MiB, rates);
  ASSERT_EQ(v.points.size(), 5u);
  EXPECT_EQ(v.points.back().model, "twin-32");
  EXPECT_EQ(v.calibration_point, 4u);
  ASSERT_EQ(v.models.size(), 5u);  // 4 models at the measured L3, byte-LRU at the nominal
  EXPECT_EQ(v.models[0].name, "byte-LRU, measured L3");
  EXPECT_NEAR(v.models[0].t0_seconds, 200e-6, 1e-9);
  EXPECT_LT(v.models[0].mean_abs_error, 1e-9);
  EXPECT_EQ(v.best, "byte-LRU, measured L3");
  EXPECT_GT(v.models[4].mean_abs_error, 0.05);  // 32 MiB holds every pool: far too fast
}

TEST(L3Validation, NoKernelSpeedsNoPrediction) {
  CacheMachine machine;
  machine.layout = shared_layout(1, 3 * MiB);
  ValidationPoint p;
  p.trace = trace_of(8, 10);
  p.measured_tps = 100;
  const Validation v = validate_working_set({p, p}, machine, 0, {0, 0, 0});
  EXPECT_TRUE(v.models.empty());
  EXPECT_TRUE(v.best.empty());
}

}  // namespace
}  // namespace moesweep
