#pragma once
// What a plan costs: seconds at the speeds of earlier runs of the same models
// (--dry-run's estimate, the shard balancer's weights), or, for a model that
// never ran, work units from nominal speeds that scale with the thread count
// (enough to balance shards: only the ratio between context groups matters).
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "results/record.hpp"
#include "sweep/plan.hpp"

namespace moesweep {

// Mean PP and TG tokens/s of earlier ok records, by model name and by
// (model name, thread count): the closer match wins.
class SpeedTable {
 public:
  void add(const Record& r);
  // Every records.jsonl under `runs_dir` (one level); unreadable runs are skipped.
  static SpeedTable from_runs(const std::filesystem::path& runs_dir);
  // (PP, TG) tokens/s for this point, nullopt when its model never ran.
  std::optional<std::pair<double, double>> speeds(const PointParams& p) const;
  // (PP, TG) mean coefficient of variation of the samples of a point (records
  // of 2 repetitions or more), nullopt when none ran: what --target-mde's
  // estimate takes the spread from.
  std::optional<std::pair<double, double>> spreads(const PointParams& p) const;

 private:
  struct Sum {
    double pp = 0, tg = 0;
    int n = 0;
    double cv_pp = 0, cv_tg = 0;
    int n_cv = 0;
  };
  const Sum* find(const PointParams& p) const;
  std::map<std::string, Sum> by_model_;
  std::map<std::pair<std::string, int>, Sum> by_threads_;
};

struct ContextCost {
  size_t model = 0, context = 0;  // indices into Plan::models / ModelGroup::contexts
  double cost = 0;                // timed tokens and the KV fill between depths
  int points = 0;
};

struct PlanCost {
  bool in_seconds = false;  // every model had earlier speeds; else work units
  double total = 0;
  std::vector<ContextCost> contexts;  // plan order
};

PlanCost estimate_cost(const Plan& plan, const SpeedTable& speeds);
// Seconds the plan would take at earlier runs' speeds; nullopt when a model
// of it never ran. A spec's --min-sample-time (> 0) counts each sample as the
// whole calls that fill it.
std::optional<double> estimate_seconds(const Plan& plan, const SpeedTable& speeds);

}  // namespace moesweep
