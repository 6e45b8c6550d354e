// The shard balancer: whole context groups, balanced cost, models kept
// together where that costs little, deterministic; and the shard file.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "cluster/shard_plan.hpp"
#include "support/test_support.hpp"
#include "sweep/plan.hpp"
#include "sweep/sweep_spec.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

Plan plan_of(std::map<std::string, nlohmann::json> settings) {
  return make_plan(spec_from_settings(settings, "test"), 64, /*dry_run=*/true);
}

// Uneven: four ubatch sizes (PP per point grows with it), two K types, two
// models, so context groups differ in cost by up to ~8x.
Plan uneven_plan() {
  return plan_of({{"model", "kimi-k2.5,qwen3-moe"},
                  {"threads", "1,2,4"},
                  {"ubatch-size", "64,128,256,512"},
                  {"batch-size", "512"},
                  {"cache-type-k", "f16,q8_0"},
                  {"ctx-size", "4096"},
                  {"depths", "0-2048+256"},
                  {"n-gen", "16"}});
}

double max_cost(const std::vector<Shard>& shards) {
  double m = 0;
  for (const Shard& s : shards) m = std::max(m, s.cost);
  return m;
}

// Earlier runs: the second model 6x slower than the first.
SpeedTable uneven_speeds(const Plan& plan) {
  SpeedTable speeds;
  for (const PlannedPoint& p : plan.points) {
    Record r;
    r.params = p.params;
    const double f = p.model == 0 ? 6.0 : 1.0;
    r.pp.speed.mean = 60 * p.params.n_threads / f;
    r.tg.speed.mean = 6 * p.params.n_threads / f;
    speeds.add(r);
  }
  return speeds;
}

TEST(ShardPlan, BalancesUnevenPlansWithin20Percent) {
  const Plan plan = uneven_plan();
  const PlanCost cost = estimate_cost(plan, uneven_speeds(plan));
  ASSERT_TRUE(cost.in_seconds);
  ASSERT_EQ(cost.contexts.size(), 16u);
  double smallest = 1e300, largest = 0;
  for (const ContextCost& c : cost.contexts) {
    smallest = std::min(smallest, c.cost);
    largest = std::max(largest, c.cost);
  }
  ASSERT_GT(largest, 3 * smallest) << "the plan must be uneven for this test to mean anything";
  for (int n : {2, 3, 4, 5}) {
    const std::vector<Shard> shards = split_plan(cost, n);
    ASSERT_EQ(shards.size(), static_cast<size_t>(n));
    EXPECT_LE(max_cost(shards), 1.2 * cost.total / n) << n << " shards";
    double sum = 0;
    for (const Shard& s : shards) sum += s.cost;
    EXPECT_NEAR(sum, cost.total, 1e-6 * cost.total);
  }
}

TEST(ShardPlan, NeverSplitsAContextGroupAndCoversEveryPointOnce) {
  const Plan plan = uneven_plan();
  const std::string id = plan_id(plan);
  const std::vector<Shard> shards = split_plan(estimate_cost(plan, SpeedTable{}), 3);
  std::multiset<int> indices;
  std::map<std::pair<size_t, size_t>, int> shard_of_context;
  for (const Shard& s : shards) {
    ShardFile f;
    f.plan_id = id;
    f.index = s.index;
    f.count = 3;
    f.contexts = s.contexts;
    Plan part = plan;
    restrict_to_shard(part, f);
    EXPECT_EQ(static_cast<int>(part.points.size()), s.points);
    for (const PlannedPoint& p : part.points) {
      indices.insert(p.index);
      const PlannedPoint& full = plan.points[p.index];
      const auto key = std::make_pair(full.model, full.context);
      auto [it, fresh] = shard_of_context.emplace(key, s.index);
      EXPECT_EQ(it->second, s.index) << "context group split across shards";
      // Renumbered indices still point at the same group.
      EXPECT_EQ(part.models[p.model].contexts[p.context].params.n_ubatch, full.params.n_ubatch);
      EXPECT_EQ(p.params.key_string(), full.params.key_string());
    }
  }
  ASSERT_EQ(indices.size(), plan.points.size());
  for (const PlannedPoint& p : plan.points) EXPECT_EQ(indices.count(p.index), 1u) << p.index;
}

TEST(ShardPlan, IsDeterministic) {
  const Plan a = uneven_plan(), b = uneven_plan();
  EXPECT_EQ(plan_id(a), plan_id(b));
  const auto sa = split_plan(estimate_cost(a, SpeedTable{}), 4);
  const auto sb = split_plan(estimate_cost(b, SpeedTable{}), 4);
  ASSERT_EQ(sa.size(), sb.size());
  for (size_t i = 0; i < sa.size(); ++i) EXPECT_EQ(sa[i].contexts, sb[i].contexts);
}

TEST(ShardPlan, KeepsEqualModelsWholeOnePerShard) {
  const Plan plan = plan_of({{"model", "kimi-k2.5,qwen3-moe,llama4-scout"},
                             {"threads", "1"},
                             {"cache-type-k", "f16,q8_0"},
                             {"depths", "0,256"}});
  const auto shards = split_plan(estimate_cost(plan, SpeedTable{}), 3);
  for (const Shard& s : shards) {
    ASSERT_EQ(s.contexts.size(), 2u);
    EXPECT_EQ(s.contexts[0].model, s.contexts[1].model) << "shard " << s.index;
  }
}

TEST(ShardPlan, RefusesMoreShardsThanContextGroups) {
  const Plan plan = plan_of({{"model", "kimi-k2.5"}, {"threads", "1,2"}, {"depths", "0,256"}});
  EXPECT_THROW(split_plan(estimate_cost(plan, SpeedTable{}), 2), UserError);
  EXPECT_THROW(split_plan(estimate_cost(plan, SpeedTable{}), 0), UserError);
  EXPECT_EQ(split_plan(estimate_cost(plan, SpeedTable{}), 1).size(), 1u);
}

TEST(ShardPlan, RefusesAShardOfAnotherPlan) {
  Plan plan = uneven_plan();
  const auto shards = split_plan(estimate_cost(plan, SpeedTable{}), 2);
  ShardFile f;
  f.plan_id = plan_id(plan_of({{"model", "kimi-k2.5"}, {"depths", "0,256"}}));
  f.count = 2;
  f.contexts = shards[0].contexts;
  EXPECT_THROW(restrict_to_shard(plan, f), UserError);
}

TEST(ShardPlan, MeasuredSpeedsGiveSecondsAndWeighTheModels) {
  const Plan plan = plan_of(
      {{"model", "kimi-k2.5,qwen3-moe"}, {"threads", "1"}, {"depths", "0,256"}, {"n-gen", "16"}});
  SpeedTable speeds;
  for (const PlannedPoint& p : plan.points) {
    Record r;
    r.params = p.params;
    const bool slow = p.model == 0;  // the first model 10x slower
    r.pp.speed.mean = slow ? 10 : 100;
    r.tg.speed.mean = slow ? 1 : 10;
    speeds.add(r);
  }
  const PlanCost cost = estimate_cost(plan, speeds);
  ASSERT_TRUE(cost.in_seconds);
  ASSERT_EQ(cost.contexts.size(), 2u);
  EXPECT_NEAR(cost.contexts[0].cost, 10 * cost.contexts[1].cost, 1e-9);
  EXPECT_FALSE(estimate_cost(plan, SpeedTable{}).in_seconds);
}

TEST(ShardFile, RoundTripsThroughJsonAndMeta) {
  const Plan plan = uneven_plan();
  const PlanCost cost = estimate_cost(plan, SpeedTable{});
  const auto shards = split_plan(cost, 3);
  const std::map<std::string, nlohmann::json> settings = {{"model", "kimi-k2.5"}};
  const auto dir = test::scratch_dir();
  const auto file = shard_file_path(dir, 1);
  std::ofstream(file) << shard_file_json(plan, plan_id(plan), shards[1], 3, settings, "test", cost);
  const ShardFile f = read_shard_file(file);
  EXPECT_EQ(f.plan_id, plan_id(plan));
  EXPECT_EQ(f.index, 1);
  EXPECT_EQ(f.count, 3);
  EXPECT_EQ(f.contexts, shards[1].contexts);
  EXPECT_EQ(static_cast<int>(f.point_keys.size()), shards[1].points);
  EXPECT_EQ(f.settings, settings);
  EXPECT_EQ(f.max_threads, 4);
  const ShardFile back = shard_from_meta(shard_meta(f));
  EXPECT_EQ(back.contexts, f.contexts);
  EXPECT_EQ(back.plan_id, f.plan_id);
  std::ofstream(dir / "bad.json") << R"({"plan_id": "x"})";
  EXPECT_THROW(read_shard_file(dir / "bad.json"), UserError);
}

TEST(ShardFile, DirectoryNeedsTheArrayTaskId) {
  const auto dir = test::scratch_dir();
  std::ofstream(shard_file_path(dir, 0)) << "{}";
  unsetenv("SLURM_ARRAY_TASK_ID");
  EXPECT_THROW(resolve_shard_arg(dir.string()), UserError);
  setenv("SLURM_ARRAY_TASK_ID", "0", 1);
  EXPECT_EQ(resolve_shard_arg(dir.string()), shard_file_path(dir, 0));
  setenv("SLURM_ARRAY_TASK_ID", "7", 1);
  EXPECT_THROW(resolve_shard_arg(dir.string()), UserError);
  setenv("SLURM_ARRAY_TASK_ID", "x", 1);
  EXPECT_THROW(resolve_shard_arg(dir.string()), UserError);
  unsetenv("SLURM_ARRAY_TASK_ID");
}

}  // namespace
}  // namespace moesweep
