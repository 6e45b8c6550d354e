// The KV cache on the real engine: after every timed phase the cache is
// rewound to exactly the depth it was measured at, and one KV walk measures
// every thread configuration at every depth in plan order (skipping, but
// still filling through, the points a resume does not want).
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <map>

#include "counters/counter_backend.hpp"
#include "engine/engine.hpp"
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

// Counts the samples and checks the KV walk's invariant as they come: after a
// TG the cache holds exactly N_KV (what the next timed PP starts from); after
// a PP exactly N_KV, or N_KV + PP when that PP stays as the fill to the next
// depth (the last one at a depth one PP shallower than the next).
struct SampleCounter : RunListener {
  const LiveContext* ctx = nullptr;
  int pp = 0, tg = 0, kept_as_fill = 0;
  void sample(const SampleEvent& s) override {
    EXPECT_GT(s.seconds, 0.0);
    const bool is_pp = std::string(s.phase) == "pp";
    (is_pp ? pp : tg)++;
    if (!ctx) return;
    const int held = ctx->cached_tokens();
    if (is_pp && held == s.params->n_kv + s.params->pp) {
      ++kept_as_fill;
      return;
    }
    EXPECT_EQ(held, s.params->n_kv) << s.phase << " of point " << s.point;
  }
};

struct WalkResult {
  std::vector<Record> records;
  SampleCounter samples;
  int cached_after = -1;
  bool finished = false;
};

using Settings = std::map<std::string, nlohmann::json>;

// One walk over depths {0, 64, 192} x threads {1, 2} of the tiny twin (PP 64:
// 0 -> 64 is one PP deeper, 64 -> 192 is not), with `more` settings on top.
WalkResult walk(const std::function<bool(const PlannedPoint&)>& wanted, Settings more = {}) {
  Settings settings = {{"threads", "1,2"},  {"depths", "0,64,192"}, {"ctx-size", 512},
                       {"batch-size", 128}, {"ubatch-size", 64},    {"n-gen", 2},
                       {"repetitions", 2},  {"counters", "none"}};
  for (auto& [k, v] : more) settings[k] = v;
  const SweepSpec spec = spec_from_settings(settings, "test");
  const Plan plan = make_plan(spec, 2);
  const ContextGroup& group = plan.models.at(0).contexts.at(0);
  const LoadedModel model(test::load_params(test::tiny_twin().string()));
  LiveContext ctx(model, group.params);
  const auto tokens = random_tokens(spec.token_seed, model.facts().n_vocab, 192 + 64 + 2);
  auto counters = counters::make_counter_backend("none");
  std::vector<const PlannedPoint*> points;
  for (const PlannedPoint& p : plan.points) points.push_back(&p);
  WalkResult out;
  out.samples.ctx = &ctx;
  const std::atomic<bool> stop{false};
  const WalkInputs in{ctx,         group, spec,    tokens,    *counters,
                      out.samples, stop,  nullptr, ctx.pid(), nullptr};
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
  const int threads[] = {1, 2, 2, 1, 1, 2};  // a snake: one switch fewer per depth
  for (size_t i = 0; i < w.records.size(); ++i) {
    const Record& r = w.records[i];
    SCOPED_TRACE(i);
    EXPECT_TRUE(r.ok);
    EXPECT_EQ(r.point_index, static_cast<int>(i));
    EXPECT_EQ(r.params.n_kv, depths[i / 2]);
    EXPECT_EQ(r.params.n_threads, threads[i]);
    EXPECT_EQ(r.repetitions.done, 2);
    EXPECT_TRUE(r.repetitions.target_met);
    EXPECT_TRUE(r.noise.contains("steal_fraction")) << r.noise.dump();
    EXPECT_TRUE(r.noise.contains("load_1m")) << r.noise.dump();
    EXPECT_EQ(r.pp.seconds.size(), 2u);
    EXPECT_EQ(r.tg.seconds.size(), 2u);
    EXPECT_EQ(r.pp.speed.n, 2);
    EXPECT_GT(r.tg.speed.mean, 0.0);
  }
  EXPECT_EQ(w.samples.pp, 6 * 2);
  EXPECT_EQ(w.samples.tg, 6 * 2);
  EXPECT_EQ(w.cached_after, 192);  // the last depth, every timed phase rewound
  // Depth 0 -> 64 is one PP: the last PP at depth 0 (point 1) was that fill.
  EXPECT_EQ(w.samples.kept_as_fill, 1);
}

TEST(KvWalk, AWalkWithAnUnreachableCiTargetStopsAtMaxRepetitions) {
  const WalkResult w = walk([](const PlannedPoint& p) { return p.index < 3; },
                            {{"repetitions", 1}, {"target-ci", "1e-9"}, {"max-repetitions", 3}});
  ASSERT_EQ(w.records.size(), 3u);
  for (const Record& r : w.records) {
    EXPECT_EQ(r.repetitions.done, 3);
    EXPECT_EQ(r.pp.seconds.size(), 3u);
    EXPECT_EQ(r.tg.seconds.size(), 3u);
    EXPECT_FALSE(r.repetitions.target_met);
    EXPECT_DOUBLE_EQ(r.repetitions.target_ci_pct, 1e-9);
  }
  EXPECT_EQ(w.samples.kept_as_fill, 1);  // still the fill to 64, after the last repetition
}

TEST(KvWalk, AnEasyCiTargetStopsAtTheTwoSamplesACiNeeds) {
  // Two samples' CI half-width is at most 12.71 x |a-b| / (a+b) < 1271%.
  const WalkResult w = walk([](const PlannedPoint& p) { return p.index == 0; },
                            {{"repetitions", 1}, {"target-ci", 5000}, {"max-repetitions", 9}});
  ASSERT_EQ(w.records.size(), 1u);
  EXPECT_EQ(w.records[0].repetitions.done, 2);
  EXPECT_TRUE(w.records[0].repetitions.target_met);
}

TEST(Repetitions, MinimumFirstThenUntilTheCiTargetOrTheMaximum) {
  SweepSpec spec = spec_from_settings({{"repetitions", 2}}, "test");
  Record rec;
  rec.pp.tokens_per_s = {100};
  rec.tg.tokens_per_s = {10};
  EXPECT_TRUE(needs_another_repetition(spec, rec, 1));  // below -r
  rec.pp.tokens_per_s = {100, 150};
  rec.tg.tokens_per_s = {10, 10};
  EXPECT_FALSE(needs_another_repetition(spec, rec, 2));  // no target: -r is all
  spec.target_ci_pct = 2;
  spec.max_repetitions = 5;
  EXPECT_TRUE(needs_another_repetition(spec, rec, 2));  // PP's CI is far from 2%
  rec.pp.tokens_per_s = {100, 100.1, 99.9, 100};
  rec.tg.tokens_per_s = {10, 10.01, 9.99, 10};
  EXPECT_FALSE(needs_another_repetition(spec, rec, 4));  // both phases within 2%
  rec.tg.tokens_per_s = {10, 14, 7, 10};
  EXPECT_TRUE(needs_another_repetition(spec, rec, 4));   // TG is not
  EXPECT_FALSE(needs_another_repetition(spec, rec, 5));  // the maximum
  rec.tg.tokens_per_s.clear();                           // -n 0: only PP counts
  EXPECT_FALSE(needs_another_repetition(spec, rec, 4));
  spec.repetitions = 1;  // one sample has no interval: never "met"
  rec.pp.tokens_per_s = {100};
  EXPECT_TRUE(needs_another_repetition(spec, rec, 1));
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
