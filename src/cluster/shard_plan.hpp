#pragma once
// Splitting a plan into shards for a cluster (`moesweep plan --shards N`) and
// running one (`moesweep sweep --shard`). A shard is a set of whole context
// groups: a KV walk stays on one node, so no depth is filled twice. Shards are
// balanced by estimated cost (sweep/plan_cost.hpp); a model group that fits
// in one shard stays whole (one model load).
//
// A shard file is self-contained: the sweep settings, the full plan's id, the
// shard's index and count, its context groups and point keys. The node
// re-expands the settings, checks the plan id (same moesweep, same profile
// expansion), and keeps only the shard's context groups.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "results/run_meta.hpp"
#include "sweep/plan.hpp"
#include "sweep/plan_cost.hpp"

namespace moesweep {

struct ShardContext {
  size_t model = 0, context = 0;  // indices into the full plan
  bool operator==(const ShardContext&) const = default;
};

struct Shard {
  int index = 0;
  std::vector<ShardContext> contexts;  // plan order
  double cost = 0;
  int points = 0;
};

// Identity of an expanded plan: sha256 (16 hex) over the spec and every
// point's key, in run order. Equal ids: the same points, the same settings.
std::string plan_id(const Plan& plan);

// N shards, deterministic. Throws UserError when N < 1 or the plan has fewer
// context groups than N.
std::vector<Shard> split_plan(const PlanCost& cost, int n_shards);

// The largest thread count (generation or batch) of the plan's points.
int max_threads(const Plan& plan);

// The shard file (DIR/shard-I.json) and the plan index (DIR/plan.json).
struct ShardFile {
  std::string plan_id;
  int index = 0, count = 0;
  std::string name;    // the sweep's name
  std::string origin;  // where the settings came from
  std::map<std::string, nlohmann::json> settings;
  std::vector<ShardContext> contexts;
  std::vector<std::string> point_keys;  // for a reader; the node re-derives them
  int max_threads = 0;
};

nlohmann::json shard_file_json(const Plan& plan, const std::string& id, const Shard& shard,
                               int count, const std::map<std::string, nlohmann::json>& settings,
                               const std::string& origin, const PlanCost& cost);
// Throws UserError naming the file and field for anything that is not a
// shard file: every field checked for type and range (index below count,
// count 1..kMaxShardCount, max_threads within the engine's threadpool, the
// plan id 1-64 hex digits).
ShardFile read_shard_file(const std::filesystem::path& file);

// DIR/plan.json, the index `moesweep slurm` reads.
struct PlanIndex {
  std::string plan_id, name;
  int shard_count = 1, max_threads = 1;
};
PlanIndex read_plan_index(const std::filesystem::path& file);
std::filesystem::path shard_file_path(const std::filesystem::path& dir, int index);
// --shard FILE, or --shard DIR with the index from SLURM_ARRAY_TASK_ID.
std::filesystem::path resolve_shard_arg(const std::string& arg);

// meta.json's "shard" fact (results/run_meta.hpp) for a run of this shard, and back.
ShardRef shard_meta(const ShardFile& f);
ShardFile shard_from_meta(const ShardRef& shard);

// Keeps only the shard's context groups (and the models they belong to),
// renumbering model/context indices but keeping each point's full-plan index.
// Throws UserError when the plan's id is not the shard's.
void restrict_to_shard(Plan& plan, const ShardFile& shard);

}  // namespace moesweep
