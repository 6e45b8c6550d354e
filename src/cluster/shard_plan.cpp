#include "cluster/shard_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "util/error.hpp"
#include "util/hash.hpp"

namespace moesweep {
namespace {

// A whole model group is placed in one shard when that keeps the shard within
// this factor of the mean; and the model-keeping split is used when it is
// within kKeepModels of plain LPT's largest shard.
constexpr double kWholeModelSlack = 1.05;
constexpr double kKeepModels = 1.10;

struct Loads {
  std::vector<Shard> shards;
  std::vector<std::set<size_t>> models;  // models each shard holds

  explicit Loads(int n) : shards(n), models(n) {
    for (int i = 0; i < n; ++i) shards[i].index = i;
  }
  // Least loaded; on a tie an empty shard, then one holding the model, then the lowest index.
  size_t pick(size_t model) const {
    size_t best = 0;
    auto key = [&](size_t i) {
      return std::make_tuple(shards[i].cost, !shards[i].contexts.empty(), !models[i].count(model),
                             i);
    };
    for (size_t i = 1; i < shards.size(); ++i)
      if (key(i) < key(best)) best = i;
    return best;
  }
  void put(size_t s, const ContextCost& c) {
    shards[s].contexts.push_back({c.model, c.context});
    shards[s].cost += c.cost;
    shards[s].points += c.points;
    models[s].insert(c.model);
  }
  double max_cost() const {
    double m = 0;
    for (const Shard& s : shards) m = std::max(m, s.cost);
    return m;
  }
};

// Longest processing time first over the context groups in `slots`.
void lpt(Loads& loads, const PlanCost& cost, std::vector<size_t> slots) {
  std::stable_sort(slots.begin(), slots.end(), [&](size_t a, size_t b) {
    return cost.contexts[a].cost > cost.contexts[b].cost;
  });
  for (size_t i : slots) loads.put(loads.pick(cost.contexts[i].model), cost.contexts[i]);
}

// Whole model groups first where they fit, the rest by LPT.
Loads keep_models(int n, const PlanCost& cost) {
  Loads loads(n);
  const double target = cost.total / n;
  std::map<size_t, std::vector<size_t>> by_model;
  std::map<size_t, double> model_cost;
  for (size_t i = 0; i < cost.contexts.size(); ++i) {
    by_model[cost.contexts[i].model].push_back(i);
    model_cost[cost.contexts[i].model] += cost.contexts[i].cost;
  }
  std::vector<size_t> models;
  for (const auto& [m, slots] : by_model) models.push_back(m);
  std::stable_sort(models.begin(), models.end(),
                   [&](size_t a, size_t b) { return model_cost[a] > model_cost[b]; });
  std::vector<size_t> rest;
  for (size_t m : models) {
    const size_t s = loads.pick(m);
    const bool fits = loads.shards[s].cost + model_cost[m] <= target * kWholeModelSlack;
    if (fits && by_model[m].size() > 0 && model_cost[m] > 0)
      for (size_t i : by_model[m]) loads.put(s, cost.contexts[i]);
    else
      rest.insert(rest.end(), by_model[m].begin(), by_model[m].end());
  }
  lpt(loads, cost, rest);
  return loads;
}

// A shard left empty (zero-cost groups) takes a group from the shard with the most.
void fill_empty(Loads& loads, const PlanCost& cost) {
  for (Shard& empty : loads.shards) {
    if (!empty.contexts.empty()) continue;
    Shard* donor = &loads.shards[0];
    for (Shard& s : loads.shards)
      if (s.contexts.size() > donor->contexts.size()) donor = &s;
    const ShardContext moved = donor->contexts.back();
    donor->contexts.pop_back();
    for (const ContextCost& c : cost.contexts)
      if (c.model == moved.model && c.context == moved.context) {
        donor->cost -= c.cost;
        donor->points -= c.points;
        empty.contexts.push_back(moved);
        empty.cost += c.cost;
        empty.points += c.points;
      }
  }
}

}  // namespace

std::string plan_id(const Plan& plan) {
  std::string text = plan.spec.to_json().dump();
  for (const PlannedPoint& p : plan.points) {
    text += '\n';  // appended apart: GCC 12 warns (-Wrestrict) on "\n" + string here
    text += p.params.key_string();
  }
  return sha256_hex(text).substr(0, 16);
}

std::vector<Shard> split_plan(const PlanCost& cost, int n_shards) {
  const int groups = static_cast<int>(cost.contexts.size());
  if (n_shards < 1 || n_shards > groups) {
    throw UserError(
        fmt::format("{} shard(s) asked for a plan of {} context group(s)", n_shards, groups),
        fmt::format("1 to {} shards: a context group (one KV walk) is never split across nodes",
                    groups),
        fmt::format("use --shards {} or fewer, or add contexts (-ub, -ctk, -c, models)",
                    std::max(1, groups)));
  }
  Loads plain(n_shards);
  std::vector<size_t> all(cost.contexts.size());
  std::iota(all.begin(), all.end(), size_t{0});
  lpt(plain, cost, all);
  Loads kept = keep_models(n_shards, cost);
  Loads& best = kept.max_cost() <= plain.max_cost() * kKeepModels ? kept : plain;
  fill_empty(best, cost);
  for (Shard& s : best.shards)
    std::sort(s.contexts.begin(), s.contexts.end(),
              [](const ShardContext& a, const ShardContext& b) {
                return std::tie(a.model, a.context) < std::tie(b.model, b.context);
              });
  return best.shards;
}

int max_threads(const Plan& plan) {
  int most = 1;
  for (const PlannedPoint& p : plan.points)
    most = std::max({most, p.params.n_threads, p.params.n_threads_batch});
  return most;
}

void restrict_to_shard(Plan& plan, const ShardFile& shard) {
  const std::string id = plan_id(plan);
  if (id != shard.plan_id) {
    throw UserError(
        fmt::format("shard {} of plan {} does not match the plan its settings expand to here ({})",
                    shard.index, shard.plan_id, id),
        "the same moesweep build and profiles as `moesweep plan` used",
        "run the shard with the moesweep that wrote it, or write the shards again with "
        "`moesweep plan`");
  }
  std::set<std::pair<size_t, size_t>> keep;
  for (const ShardContext& c : shard.contexts) {
    if (c.model >= plan.models.size() || c.context >= plan.models[c.model].contexts.size())
      throw UserError(fmt::format("shard {} names context group {}/{} the plan lacks", shard.index,
                                  c.model, c.context),
                      "a shard file written by `moesweep plan`", "write the shards again");
    keep.insert({c.model, c.context});
  }
  std::vector<ModelGroup> models;
  std::map<std::pair<size_t, size_t>, std::pair<size_t, size_t>> renumber;
  for (size_t mi = 0; mi < plan.models.size(); ++mi) {
    ModelGroup mg = plan.models[mi];
    mg.contexts.clear();
    for (size_t ci = 0; ci < plan.models[mi].contexts.size(); ++ci)
      if (keep.count({mi, ci})) {
        renumber[{mi, ci}] = {models.size(), mg.contexts.size()};
        mg.contexts.push_back(plan.models[mi].contexts[ci]);
      }
    if (!mg.contexts.empty()) models.push_back(std::move(mg));
  }
  std::vector<PlannedPoint> points;
  for (PlannedPoint& p : plan.points) {
    auto it = renumber.find({p.model, p.context});
    if (it == renumber.end()) continue;
    std::tie(p.model, p.context) = it->second;
    points.push_back(std::move(p));
  }
  plan.models = std::move(models);
  plan.points = std::move(points);
}

}  // namespace moesweep
