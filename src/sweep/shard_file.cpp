// Shard files and meta.json's "shard" object (sweep/shard_plan.hpp).
#include <fmt/format.h>

#include <cstdlib>
#include <set>

#include "sweep/shard_plan.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

constexpr int kShardFormat = 1;

nlohmann::json contexts_json(const Plan& plan, const Shard& shard, const PlanCost& cost) {
  nlohmann::json out = nlohmann::json::array();
  for (const ShardContext& c : shard.contexts) {
    const ModelGroup& mg = plan.models[c.model];
    const ContextGroup& cg = mg.contexts[c.context];
    int points = 0;
    double ccost = 0;
    for (const ContextCost& k : cost.contexts)
      if (k.model == c.model && k.context == c.context) points = k.points, ccost = k.cost;
    out.push_back({{"model", c.model},
                   {"context", c.context},
                   {"model_name", model_display_name(mg.choice, plan.spec)},
                   {"n_ctx", cg.params.n_ctx},
                   {"n_batch", cg.params.n_batch},
                   {"n_ubatch", cg.params.n_ubatch},
                   {"type_k", cg.params.type_k},
                   {"type_v", cg.params.type_v},
                   {"flash_attn", flash_attn_name(cg.params.flash_attn)},
                   {"depths", cg.depths},
                   {"points", points},
                   {"cost", ccost}});
  }
  return out;
}

UserError not_a_shard(const std::string& origin, const std::string& why) {
  return UserError(fmt::format("{} is not a shard file: {}", origin, why),
                   "a shard-I.json written by `moesweep plan --shards N --out DIR`",
                   "write the shards with `moesweep plan`, then pass DIR/shard-I.json or DIR");
}

size_t index_field(const nlohmann::json& obj, std::string_view key, const std::string& origin) {
  const int64_t v = require_field<int64_t>(obj, key, origin);
  if (v < 0) throw not_a_shard(origin, fmt::format("negative \"{}\"", key));
  return static_cast<size_t>(v);
}

}  // namespace

nlohmann::json shard_file_json(const Plan& plan, const std::string& id, const Shard& shard,
                               int count, const std::map<std::string, nlohmann::json>& settings,
                               const std::string& origin, const PlanCost& cost) {
  nlohmann::json keys = nlohmann::json::array();
  std::set<std::pair<size_t, size_t>> mine;
  for (const ShardContext& c : shard.contexts) mine.insert({c.model, c.context});
  for (const PlannedPoint& p : plan.points)
    if (mine.count({p.model, p.context}))
      keys.push_back({{"index", p.index}, {"key", p.params.key_string()}});
  return {{"moesweep_shard", kShardFormat},
          {"plan_id", id},
          {"shard_index", shard.index},
          {"shard_count", count},
          {"name", plan.spec.name},
          {"origin", origin},
          {"settings", settings},
          {"max_threads", max_threads(plan)},
          {"plan_points", plan.points.size()},
          {"cost",
           {{"estimate", shard.cost},
            {"plan_total", cost.total},
            {"unit", cost.in_seconds ? "seconds" : "work"}}},
          {"contexts", contexts_json(plan, shard, cost)},
          {"points", keys}};
}

ShardFile read_shard_file(const std::filesystem::path& file) {
  const nlohmann::json j = read_json_file(file, "shard file");
  const std::string origin = file.string();
  if (!j.is_object() || j.value("moesweep_shard", 0) != kShardFormat)
    throw not_a_shard(origin, fmt::format("no \"moesweep_shard\": {}", kShardFormat));
  ShardFile f;
  f.plan_id = require_field<std::string>(j, "plan_id", origin);
  f.index = require_field<int>(j, "shard_index", origin);
  f.count = require_field<int>(j, "shard_count", origin);
  f.name = optional_field<std::string>(j, "name", "adhoc", origin);
  f.origin = optional_field<std::string>(j, "origin", origin, origin);
  f.max_threads = optional_field<int>(j, "max_threads", 1, origin);
  if (!j.contains("settings") || !j["settings"].is_object())
    throw not_a_shard(origin, "no \"settings\" object");
  for (auto& [k, v] : j["settings"].items()) f.settings[k] = v;
  for (const auto& c : j.value("contexts", nlohmann::json::array()))
    f.contexts.push_back({index_field(c, "model", origin), index_field(c, "context", origin)});
  for (const auto& p : j.value("points", nlohmann::json::array()))
    f.point_keys.push_back(require_field<std::string>(p, "key", origin));
  if (f.index < 0 || f.index >= f.count || f.contexts.empty())
    throw not_a_shard(origin, "shard_index outside shard_count, or no contexts");
  return f;
}

std::filesystem::path shard_file_path(const std::filesystem::path& dir, int index) {
  return dir / fmt::format("shard-{}.json", index);
}

std::filesystem::path resolve_shard_arg(const std::string& arg) {
  if (!std::filesystem::is_directory(arg)) return arg;
  const char* task = std::getenv("SLURM_ARRAY_TASK_ID");
  if (!task || !*task) {
    throw UserError(
        fmt::format("--shard {} is a directory but SLURM_ARRAY_TASK_ID is not set", arg),
        "--shard DIR inside a Slurm array task, or --shard DIR/shard-I.json",
        "name the shard file, or run it from the script `moesweep slurm` writes");
  }
  char* end = nullptr;
  const long index = std::strtol(task, &end, 10);
  if (*end != '\0' || index < 0 || index > 1000000)
    throw UserError(fmt::format("SLURM_ARRAY_TASK_ID '{}' is not a shard index", task),
                    "a non-negative integer (the array index)",
                    "submit with --array=0-(N-1) as `moesweep slurm` writes it");
  const std::filesystem::path file = shard_file_path(arg, static_cast<int>(index));
  if (!std::filesystem::exists(file))
    throw UserError(fmt::format("{} does not exist (SLURM_ARRAY_TASK_ID {})", file.string(), task),
                    "one shard-I.json per array index in the plan directory",
                    "submit --array=0-(N-1) for the N shards `moesweep plan` wrote");
  return file;
}

nlohmann::json shard_meta(const ShardFile& f) {
  nlohmann::json contexts = nlohmann::json::array();
  for (const ShardContext& c : f.contexts) contexts.push_back({c.model, c.context});
  return {{"plan_id", f.plan_id}, {"index", f.index},   {"count", f.count},
          {"name", f.name},       {"origin", f.origin}, {"contexts", contexts}};
}

ShardFile shard_from_meta(const nlohmann::json& shard) {
  const std::string origin = "meta.json \"shard\"";
  ShardFile f;
  f.plan_id = require_field<std::string>(shard, "plan_id", origin);
  f.index = require_field<int>(shard, "index", origin);
  f.count = require_field<int>(shard, "count", origin);
  f.name = optional_field<std::string>(shard, "name", "adhoc", origin);
  f.origin = optional_field<std::string>(shard, "origin", "", origin);
  for (const auto& c : shard.value("contexts", nlohmann::json::array())) {
    if (!c.is_array() || c.size() != 2 || !c[0].is_number_unsigned() || !c[1].is_number_unsigned())
      throw not_a_shard(origin, fmt::format("context {} is not [model, context]", c.dump()));
    f.contexts.push_back({c[0].get<size_t>(), c[1].get<size_t>()});
  }
  return f;
}

}  // namespace moesweep
