// The KV cache on the real engine: after every timed phase the cache is
// rewound to exactly the depth it was measured at, and one KV walk measures
// every thread configuration at every depth in plan order (skipping, but
// still filling through, the points a resume does not want).
#include <gtest/gtest.h>

#include <atomic>

#include "counters/counter_backend.hpp"
#include "engine/llama_engine.hpp"
#include "support/engine_fixtures.hpp"
#include "support/test_support.hpp"
#include "sweep/kv_walk.hpp"
#include "sweep/runner.hpp"

namespace moesweep {
namespace {

ContextParams small_context() {
  ContextParams cp;
  cp.n_ctx = 512;
  cp.n_batch = 128;
  cp.n_ubatch = 64;
  return cp;
}

TEST(KvRewind, CacheHoldsExactlyTheDepthAfterGenerateAndPrefill) {
  const LoadedModel model(test::load_params(test::tiny_twin().string()));
  LiveContext ctx(model, small_context());
  ctx.set_threads(test::threads(1));
  const auto tokens = random_tokens(99, model.facts().n_vocab, 400);
  const int depth = 200;  // more than one n_batch: the prefill is chunked
  ctx.prefill({tokens.begin(), tokens.begin() + depth}, 0);
  ASSERT_EQ(ctx.cached_tokens(), depth);

  ctx.generate({tokens.begin() + 300, tokens.begin() + 304}, depth);
  EXPECT_EQ(ctx.cached_tokens(), depth + 4);
  ctx.rewind_to(depth);
  EXPECT_EQ(ctx.cached_tokens(), depth);

  ctx.prefill({tokens.begin() + depth, tokens.begin() + depth + 64}, depth);
  EXPECT_EQ(ctx.cached_tokens(), depth + 64);
  ctx.rewind_to(depth);
  EXPECT_EQ(ctx.cached_tokens(), depth);

  // Rewinding to a shallower depth, then decoding from there again.
  ctx.rewind_to(50);
  EXPECT_EQ(ctx.cached_tokens(), 50);
  ctx.generate({tokens[50], tokens[51]}, 50);
  EXPECT_EQ(ctx.cached_tokens(), 52);
  ctx.rewind_to(0);
  EXPECT_EQ(ctx.cached_tokens(), 0);
}

TEST(KvRewind, ThreadSwitchOnTheLiveContextKeepsTheCache) {
  const LoadedModel model(test::load_params(test::tiny_twin().string()));
  LiveContext ctx(model, small_context());
  ctx.set_threads(test::threads(1));
  const auto tokens = random_tokens(5, model.facts().n_vocab, 64);
  ctx.prefill(tokens, 0);
  ctx.set_threads(test::threads(2));
  EXPECT_EQ(ctx.cached_tokens(), 64);
  ctx.generate({tokens[0]}, 64);
  EXPECT_EQ(ctx.cached_tokens(), 65);
}

struct SampleCounter : RunObserver {
  int pp = 0, tg = 0;
  void on_sample(const PlannedPoint&, const char* phase, int, double seconds, int) override {
    EXPECT_GT(seconds, 0.0);
    (std::string(phase) == "pp" ? pp : tg)++;
  }
};

struct WalkResult {
  std::vector<Record> records;
  SampleCounter samples;
  int cached_after = -1;
  bool finished = false;
};

// One walk over depths {0, 64, 192} x threads {1, 2} of the tiny twin.
WalkResult walk(const std::function<bool(const PlannedPoint&)>& wanted) {
  const SweepSpec spec = spec_from_settings({{"threads", "1,2"},
                                             {"depths", "0,64,192"},
                                             {"ctx-size", 512},
                                             {"batch-size", 128},
                                             {"ubatch-size", 64},
                                             {"n-gen", 2},
                                             {"repetitions", 2},
                                             {"counters", "none"}},
                                            "test");
  const Plan plan = make_plan(spec, 2);
  const ContextGroup& group = plan.models.at(0).contexts.at(0);
  const LoadedModel model(test::load_params(test::tiny_twin().string()));
  LiveContext ctx(model, group.params);
  const auto tokens = random_tokens(spec.token_seed, model.facts().n_vocab, 192 + 64 + 2);
  auto counters = counters::make_counter_backend("none");
  std::vector<const PlannedPoint*> points;
  for (const PlannedPoint& p : plan.points) points.push_back(&p);
  WalkResult out;
  const std::atomic<bool> stop{false};
  const WalkInputs in{ctx, group, spec, tokens, *counters, out.samples, stop};
  out.finished = run_kv_walk(in, points, wanted, [&](const PlannedPoint& p, Record&& rec) {
    EXPECT_EQ(rec.point_index, p.index);
    out.records.push_back(std::move(rec));
  });
  out.cached_after = ctx.cached_tokens();
  return out;
}

TEST(KvWalk, MeasuresEveryThreadConfigAtEveryDepthInPlanOrder) {
  const WalkResult w = walk([](const PlannedPoint&) { return true; });
  EXPECT_TRUE(w.finished);
  ASSERT_EQ(w.records.size(), 6u);
  const int depths[] = {0, 64, 192};
  for (size_t i = 0; i < w.records.size(); ++i) {
    const Record& r = w.records[i];
    SCOPED_TRACE(i);
    EXPECT_TRUE(r.ok);
    EXPECT_EQ(r.point_index, static_cast<int>(i));
    EXPECT_EQ(r.params.n_kv, depths[i / 2]);
    EXPECT_EQ(r.params.n_threads, static_cast<int>(i % 2) + 1);
    EXPECT_EQ(r.pp.seconds.size(), 2u);
    EXPECT_EQ(r.tg.seconds.size(), 2u);
    EXPECT_EQ(r.pp.speed.n, 2);
    EXPECT_GT(r.tg.speed.mean, 0.0);
  }
  EXPECT_EQ(w.samples.pp, 6 * 2);
  EXPECT_EQ(w.samples.tg, 6 * 2);
  EXPECT_EQ(w.cached_after, 192);  // the last depth, every timed phase rewound
}

TEST(KvWalk, SkippedPointsAreNotMeasuredButTheWalkStillReachesTheirDepths) {
  // A resume that already has everything but the deepest 2-thread point.
  const WalkResult w = walk([](const PlannedPoint& p) { return p.index == 5; });
  EXPECT_TRUE(w.finished);
  ASSERT_EQ(w.records.size(), 1u);
  EXPECT_EQ(w.records[0].params.n_kv, 192);
  EXPECT_EQ(w.records[0].params.n_threads, 2);
  EXPECT_EQ(w.samples.pp, 2);
  EXPECT_EQ(w.cached_after, 192);
}

}  // namespace
}  // namespace moesweep
