// Shard files and meta.json's "shard" object (cluster/shard_plan.hpp).
#include <fmt/format.h>

#include <cstdlib>
#include <set>

#include "cluster/shard_plan.hpp"
#include "engine/engine_limits.hpp"
#include "util/error.hpp"
#include "util/json_fields.hpp"
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

// A plan id as `plan_id()` writes it: 16 hex digits (1-64 accepted).
std::string plan_id_field(const JsonFields& f, const char* key) {
  const std::string id = f.text(key);
  const bool hex = !id.empty() && id.size() <= 64 &&
                   id.find_first_not_of("0123456789abcdef") == std::string::npos;
  if (!hex) f.fail(key, "the plan's id: hex digits, as `moesweep plan` writes it");
  return id;
}

int max_threads_field(const JsonFields& f) {
  return static_cast<int>(f.integer("max_threads", 1, engine_limits::kMaxThreads, 1));
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
  if (!j.is_object() || j.value("moesweep_shard", nlohmann::json()) != kShardFormat)
    throw not_a_shard(origin, fmt::format("no \"moesweep_shard\": {}", kShardFormat));
  const JsonFields f(j, origin);
  ShardFile s;
  s.plan_id = plan_id_field(f, "plan_id");
  if (!f.has("shard_count") || !f.has("shard_index"))
    f.fail(f.has("shard_count") ? "shard_index" : "shard_count", "the shard's index and count");
  s.count = static_cast<int>(f.integer("shard_count", 1, kMaxShardCount, 0));
  s.index = static_cast<int>(f.integer("shard_index", 0, s.count - 1, -1));
  s.name = f.text("name", "adhoc");
  s.origin = f.text("origin", origin);
  s.max_threads = max_threads_field(f);
  if (!f.has("settings") || !j["settings"].is_object())
    throw not_a_shard(origin, "no \"settings\" object");
  for (auto& [k, v] : j["settings"].items()) s.settings[k] = v;
  constexpr int64_t kMaxIndex = 1 << 20;  // more model or context groups than any plan has
  for (const JsonFields& c : f.objects("contexts"))
    s.contexts.push_back({static_cast<size_t>(c.integer("model", 0, kMaxIndex, -1)),
                          static_cast<size_t>(c.integer("context", 0, kMaxIndex, -1))});
  for (const JsonFields& p : f.objects("points")) s.point_keys.push_back(p.text("key"));
  if (s.contexts.empty()) throw not_a_shard(origin, "no contexts");
  return s;
}

PlanIndex read_plan_index(const std::filesystem::path& file) {
  const nlohmann::json j = read_json_file(file, "plan index");
  const std::string origin = file.string();
  const JsonFields f(j, origin);
  if (f.integer("moesweep_plan", 1, 1, 1) != 1 || !f.has("shard_count"))
    f.fail("shard_count", "a plan.json written by `moesweep plan --shards N --out DIR`");
  PlanIndex p;
  p.plan_id = plan_id_field(f, "plan_id");
  p.name = f.text("name", "adhoc");
  p.shard_count = static_cast<int>(f.integer("shard_count", 1, kMaxShardCount, 1));
  p.max_threads = max_threads_field(f);
  return p;
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

ShardRef shard_meta(const ShardFile& f) {
  ShardRef s;
  s.plan_id = f.plan_id;
  s.index = f.index;
  s.count = f.count;
  s.name = f.name;
  s.origin = f.origin;
  for (const ShardContext& c : f.contexts) s.contexts.emplace_back(c.model, c.context);
  return s;
}

ShardFile shard_from_meta(const ShardRef& s) {
  ShardFile f;
  f.plan_id = s.plan_id;
  f.index = s.index;
  f.count = s.count;
  f.name = s.name.empty() ? "adhoc" : s.name;
  f.origin = s.origin;
  for (const auto& [model, context] : s.contexts)
    f.contexts.push_back({static_cast<size_t>(model), static_cast<size_t>(context)});
  return f;
}

}  // namespace moesweep
