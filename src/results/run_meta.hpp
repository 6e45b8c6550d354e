#pragma once
// meta.json, typed: one reader and one writer for every run directory (a
// sweep, a shard, a merged run, a serve-bench run, a routing trace).
//
// Every field the code reads is a member here, checked for type and range
// when the file is read (UserError naming the file, the field and what was
// expected; exit 2). Every other key is kept as read (`untyped`, `kind_facts`) and written
// back unchanged, so a rewrite by this moesweep keeps what a newer one added.
// Older files are read through explicit migrations (run_meta.cpp):
//   schema 1  round 1, unversioned: a failure was "interrupted" with "error";
//   schema 2  round 2, unversioned: "failed"; traces without run_id or name;
//   schema 3  this: "schema_version", "kind", "run_id" and "name" always.
// A newer schema_version is refused (written by a newer moesweep).
//
// Adding a fact (an engine's CPU variant, say): a member in the struct and one
// row in its table in run_meta.cpp (key, member, range). Reader,
// writer and the error messages follow from the row; files without the key
// read the member's default.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "results/machine_class.hpp"

namespace moesweep {

inline constexpr int kRunMetaSchema = 3;
// The most shards a plan is split into (`moesweep plan --shards`).
inline constexpr int kMaxShardCount = 100000;

// A run's one state, as meta.json and the database's runs.status say it:
// running, then complete, points_failed (finished, some points failed),
// interrupted (Ctrl-C; resumable) or failed (an error stopped it; resumable
// once fixed).
// The one place a status is spelled is run_status_name().
enum class RunStatus { kRunning, kComplete, kInterrupted, kPointsFailed, kFailed };
inline constexpr RunStatus kRunStatuses[] = {RunStatus::kRunning, RunStatus::kComplete,
                                             RunStatus::kInterrupted, RunStatus::kPointsFailed,
                                             RunStatus::kFailed};
const char* run_status_name(RunStatus s);
std::optional<RunStatus> parse_run_status(std::string_view name);
// "running, complete, interrupted, points_failed or failed" (for messages).
std::string run_status_names();

// What made a run directory, as meta.json's "kind" says it: a sweep (a shard
// run too), a merge of shard runs, a serve-bench run or a routing trace.
// The one place a kind is spelled is run_kind_name().
enum class RunKind { kSweep, kMerged, kServe, kRoutingTrace };
inline constexpr RunKind kRunKinds[] = {RunKind::kSweep, RunKind::kMerged, RunKind::kServe,
                                        RunKind::kRoutingTrace};
const char* run_kind_name(RunKind k);
std::optional<RunKind> parse_run_kind(std::string_view name);
// "sweep, merged, serve or routing-trace" (for messages).
std::string run_kind_names();

// build.engine: the engine build the run measured, as its worker reported it
// (engine/engine_types.hpp's EngineFacts is the live one).
struct RecordedEngine {
  std::string name, release, commit, build, cpu_variant;
  nlohmann::json untyped = nlohmann::json::object();  // keys no member holds, as read
};

// build.cpu: the CPU the run was measured on (/proc/cpuinfo).
struct CpuFacts {
  std::string model_name, vendor;
  int family = 0, model = 0, logical_cpus = 0;
  bool hypervisor = false;
  nlohmann::json untyped = nlohmann::json::object();  // keys no member holds, as read
};

// build: moesweep's own build and the engine's (hw/build_info.hpp writes it).
struct BuildFacts {
  std::string moesweep_version, build_type, engine_target, compiler, system_info;
  std::vector<std::string> cpu_features;
  RecordedEngine engine;
  CpuFacts cpu;
  nlohmann::json untyped = nlohmann::json::object();  // keys no member holds, as read
};

// models[]: a model the run loaded (path and fingerprint; the shape stays in untyped).
struct RunModelFacts {
  std::string path, sha256;
  nlohmann::json untyped = nlohmann::json::object();  // keys no member holds, as read
};

// shard: which shard of which plan a run measured (cluster/shard_plan.hpp).
struct ShardRef {
  std::string plan_id, name, origin;
  int index = 0, count = 1;
  std::vector<std::pair<uint64_t, uint64_t>> contexts;  // [model, context] of the full plan
  nlohmann::json untyped = nlohmann::json::object();    // keys no member holds, as read
};

// node: the host a shard ran on (Slurm ids stay in untyped).
struct NodeFacts {
  std::string host, cpu_model, hardware_profile;
  int logical_cpus = 0;
  nlohmann::json untyped = nlohmann::json::object();  // keys no member holds, as read
};

struct ThreadBandwidth {
  int threads = 0;
  double gbps = 0;
};

// bandwidth: the memory bandwidth figure the roofline used.
struct BandwidthFacts {
  double gbps = 0;
  std::string source;  // "measured", a hardware profile, ...
  std::vector<ThreadBandwidth> by_threads;
  nlohmann::json untyped = nlohmann::json::object();  // keys no member holds, as read
};

// merge.sources[]: one shard run a merged run was made from.
struct MergeSource {
  std::string dir, run_id, status;
  int shard = 0;
  int64_t records = 0;
  std::optional<NodeFacts> node;
  std::optional<BandwidthFacts> bandwidth;
  nlohmann::json untyped = nlohmann::json::object();  // keys no member holds, as read
};

// merge: how a merged run was put together (cluster/merge_runs.hpp).
struct MergeFacts {
  std::string plan_id;
  int shard_count = 0;
  int64_t planned_points = 0;
  bool complete = false;
  std::vector<std::string> missing, duplicated, unplanned;
  std::vector<int> missing_shards;
  std::vector<MergeSource> sources;
  nlohmann::json untyped = nlohmann::json::object();  // keys no member holds, as read
};

// plan: what a sweep's plan costs (sweep/plan.hpp, Plan::summary()).
struct PlanSummary {
  int64_t points = 0, model_loads = 0, contexts = 0, thread_switches = 0;
  int64_t timed_tokens = 0, fill_tokens = 0;
  std::vector<std::string> engines;                   // sweep --engine with two or more
  std::string engine_order;                           // how their repetitions take turns
  nlohmann::json untyped = nlohmann::json::object();  // keys no member holds, as read
};

// outcome: how a sweep's or a merge's points ended (a sweep skips points a
// resumed run had; a merge misses points no shard had).
struct OutcomeFacts {
  int64_t ok_points = 0, failed_points = 0, skipped_points = 0, missing_points = 0;
  int64_t planned_points = 0;
  nlohmann::json untyped = nlohmann::json::object();  // keys no member holds, as read
};

// A sweep's (and a merged run's) facts beyond its plan, at the top of
// meta.json. Each object is owned by the part that makes it and reads it
// back: the spec (sweep/sweep_spec.hpp), the sample length
// (sweep/sample_length.hpp), the noise profile (hw/noise_profile.hpp), the
// counters (counters/counter_backend.hpp), the steal-flagged points (the tables).
struct SweepFacts {
  nlohmann::json spec, sample_length, noise_profile, counters, noise;
};

// A serve-bench run's facts (serve/serve_bench.cpp), at the top of meta.json.
struct ServeFacts {
  std::string model, url;  // the GGUF served; --url ("" when serve-bench started the server)
  std::vector<std::string> server_configs;  // each configuration's label
  // Each server started, by configuration (the current one also as `server`):
  // its binary, arguments, log, settings, when it started, got ready, stopped.
  nlohmann::json servers, server;
  nlohmann::json workloads;                 // each workload's summary (serve/workload_summary)
  nlohmann::json cold_start;                // the cold-start workload's restarts
  std::string api;                          // the HTTP API the requests used
  std::optional<bool> prompt_tokens_exact;  // the server tokenized the prompts (/tokenize)
  std::optional<int64_t> steer_token;       // the token a twin's prompts steer towards
};

struct RunMeta {
  int schema_version = kRunMetaSchema;
  RunKind kind = RunKind::kSweep;
  std::string run_id, name;
  RunStatus status = RunStatus::kRunning;
  std::string started_at, finished_at, error;
  std::vector<std::string> command_line, resumed_at, hosts;
  bool has_database = false;            // the key is there: a run since resume kept its store
  std::optional<std::string> database;  // null: --no-db
  std::map<std::string, nlohmann::json> settings;  // the sweep's settings, checked when expanded
  std::optional<BuildFacts> build;
  std::optional<MachineClass> machine_class;
  std::vector<RunModelFacts> models;
  std::optional<ShardRef> shard;
  std::optional<NodeFacts> node;
  std::optional<BandwidthFacts> bandwidth;
  std::optional<MergeFacts> merge;
  std::optional<PlanSummary> plan;      // a sweep's
  std::optional<OutcomeFacts> outcome;  // a finished sweep's or merge's
  std::optional<SweepFacts> sweep;      // a sweep's or merged run's
  std::optional<ServeFacts> serve;      // a serve-bench run's
  // meta.json's keys that no member above holds (a routing trace's summary,
  // a newer moesweep's), written back as read.
  nlohmann::json kind_facts = nlohmann::json::object();

  std::string run_dir;  // where it lives (not a meta.json key)

  // plan.points of a sweep (0 when not recorded).
  int64_t planned_points() const { return plan ? plan->points : 0; }
};

// The meta.json of a run directory; UserError for a missing, unreadable,
// over-deep, mistyped or newer-schema file (its path, field, what was expected).
RunMeta read_run_meta(const std::filesystem::path& dir);
// The same, or nullopt when the directory has no meta.json (a broken one is
// still an error).
std::optional<RunMeta> read_run_meta_if_present(const std::filesystem::path& dir);
// From parsed JSON (the database's copy, say): migrated and checked.
// `dir_name` names a trace written before run ids (schema 2).
RunMeta run_meta_from_json(const nlohmann::json& j, const std::string& origin,
                           const std::string& dir_name = "");
// The older schemas brought to kRunMetaSchema (exposed for the migration tests).
nlohmann::json migrate_run_meta(nlohmann::json j, const std::string& origin,
                                const std::string& dir_name);

nlohmann::json to_json(const RunMeta& meta);
nlohmann::json to_json(const BuildFacts& build);
BuildFacts build_facts_from_json(const nlohmann::json& j, const std::string& origin);
nlohmann::json to_json(const RunModelFacts& model);
RunModelFacts model_facts_from_json(const nlohmann::json& j, const std::string& origin);
nlohmann::json to_json(const NodeFacts& node);
nlohmann::json to_json(const BandwidthFacts& bandwidth);
BandwidthFacts bandwidth_facts_from_json(const nlohmann::json& j, const std::string& origin);
NodeFacts node_facts_from_json(const nlohmann::json& j, const std::string& origin);
nlohmann::json to_json(const ShardRef& shard);
nlohmann::json to_json(const MergeFacts& merge);
nlohmann::json to_json(const PlanSummary& plan);

// Writes DIR/meta.json atomically (a reader never sees half a file).
void write_run_meta(const std::filesystem::path& dir, const RunMeta& meta);

// The machine class of a run: its "machine_class" when recorded, else its
// build facts (runs older than the class; L3 not recorded); unknown without either.
MachineClass machine_class_of(const RunMeta& meta);

}  // namespace moesweep
