#include "results/run_meta.hpp"

#include <fmt/format.h>

#include <iterator>

#include "util/error.hpp"
#include "util/json_fields.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

constexpr int64_t kMaxInt = std::numeric_limits<int32_t>::max();
constexpr int64_t kMaxCount = std::numeric_limits<int64_t>::max();
constexpr int64_t kMaxCpus = 1 << 20;

// The field tables: one row per member. A new fact of the engine or the
// build is a member in run_meta.hpp and one row here.
const FieldRows<RecordedEngine>& engine_fields() {
  static const FieldRows<RecordedEngine> rows = {
      {"name", &RecordedEngine::name},
      {"release", &RecordedEngine::release},
      {"commit", &RecordedEngine::commit},
      {"build", &RecordedEngine::build},
      {"cpu_variant", &RecordedEngine::cpu_variant},
  };
  return rows;
}

const FieldRows<CpuFacts>& cpu_fields() {
  static const FieldRows<CpuFacts> rows = {
      {"model_name", &CpuFacts::model_name},
      {"vendor", &CpuFacts::vendor},
      {"family", &CpuFacts::family, 0, 0xffff},
      {"model", &CpuFacts::model, 0, 0xffff},
      {"logical_cpus", &CpuFacts::logical_cpus, 0, kMaxCpus},
      {"hypervisor", &CpuFacts::hypervisor},
  };
  return rows;
}

const FieldRows<BuildFacts>& build_fields() {
  static const FieldRows<BuildFacts> rows = {
      {"moesweep_version", &BuildFacts::moesweep_version},
      {"build_type", &BuildFacts::build_type},
      {"engine_target", &BuildFacts::engine_target},
      {"compiler", &BuildFacts::compiler},
      {"system_info", &BuildFacts::system_info},
      {"cpu_features", &BuildFacts::cpu_features},
  };
  return rows;
}

const FieldRows<RunModelFacts>& model_fields() {
  static const FieldRows<RunModelFacts> rows = {{"path", &RunModelFacts::path},
                                                {"sha256", &RunModelFacts::sha256}};
  return rows;
}

const FieldRows<NodeFacts>& node_fields() {
  static const FieldRows<NodeFacts> rows = {
      {"host", &NodeFacts::host},
      {"cpu_model", &NodeFacts::cpu_model},
      {"hardware_profile", &NodeFacts::hardware_profile},
      {"logical_cpus", &NodeFacts::logical_cpus, 0, kMaxCpus},
  };
  return rows;
}

const FieldRows<BandwidthFacts>& bandwidth_fields() {
  static const FieldRows<BandwidthFacts> rows = {
      {"gbps", &BandwidthFacts::gbps, 0, 1 << 30},
      {"source", &BandwidthFacts::source},
  };
  return rows;
}

const FieldRows<ShardRef>& shard_fields() {
  static const FieldRows<ShardRef> rows = {
      {"plan_id", &ShardRef::plan_id},
      {"index", &ShardRef::index, 0, kMaxShardCount - 1},
      {"count", &ShardRef::count, 1, kMaxShardCount},
      {"name", &ShardRef::name},
      {"origin", &ShardRef::origin},
  };
  return rows;
}

const FieldRows<MergeSource>& source_fields() {
  static const FieldRows<MergeSource> rows = {
      {"dir", &MergeSource::dir},
      {"run_id", &MergeSource::run_id},
      {"shard", &MergeSource::shard, 0, kMaxShardCount - 1},
      {"status", &MergeSource::status},
      {"records", &MergeSource::records, 0, kMaxCount},
  };
  return rows;
}

const FieldRows<MergeFacts>& merge_fields() {
  static const FieldRows<MergeFacts> rows = {
      {"plan_id", &MergeFacts::plan_id},
      {"shard_count", &MergeFacts::shard_count, 1, kMaxShardCount},
      {"planned_points", &MergeFacts::planned_points, 0, kMaxCount},
      {"complete", &MergeFacts::complete},
      {"missing", &MergeFacts::missing},
      {"duplicated", &MergeFacts::duplicated},
      {"unplanned", &MergeFacts::unplanned},
  };
  return rows;
}

const FieldRows<PlanSummary>& plan_fields() {
  using P = PlanSummary;
  static const FieldRows<P> rows = {
      {"points", &P::points, 0, kMaxInt},
      {"model_loads", &P::model_loads, 0, kMaxCount},
      {"contexts", &P::contexts, 0, kMaxCount},
      {"thread_switches", &P::thread_switches, 0, kMaxCount},
      {"timed_tokens", &P::timed_tokens, 0, kMaxCount},
      {"fill_tokens", &P::fill_tokens, 0, kMaxCount},
      {"engines", &P::engines},
      {"engine_order", &P::engine_order},
  };
  return rows;
}

// A sweep's outcome skips, a merge's misses: each kind writes its own.
const FieldRows<OutcomeFacts>& outcome_fields(RunKind kind) {
  using O = OutcomeFacts;
  static const FieldRows<O> sweep = {
      {"ok_points", &O::ok_points, 0, kMaxCount},
      {"failed_points", &O::failed_points, 0, kMaxCount},
      {"skipped_points", &O::skipped_points, 0, kMaxCount},
      {"planned_points", &O::planned_points, 0, kMaxCount},
  };
  static const FieldRows<O> merged = {
      {"ok_points", &O::ok_points, 0, kMaxCount},
      {"failed_points", &O::failed_points, 0, kMaxCount},
      {"missing_points", &O::missing_points, 0, kMaxCount},
      {"planned_points", &O::planned_points, 0, kMaxCount},
  };
  return kind == RunKind::kMerged ? merged : sweep;
}

const FieldRows<SweepFacts>& sweep_fields() {
  using W = SweepFacts;
  static const FieldRows<W> rows = {{"spec", &W::spec},
                                    {"sample_length", &W::sample_length},
                                    {"noise_profile", &W::noise_profile},
                                    {"counters", &W::counters},
                                    {"noise", &W::noise}};
  return rows;
}

const FieldRows<ServeFacts>& serve_fields() {
  using V = ServeFacts;
  static const FieldRows<V> rows = {
      {"model", &V::model},
      {"url", &V::url, 0, kMaxInt, true},
      {"server_configs", &V::server_configs, 0, kMaxInt, true},
      {"servers", &V::servers},
      {"server", &V::server},
      {"workloads", &V::workloads},
      {"cold_start", &V::cold_start},
      {"api", &V::api},
      {"prompt_tokens_exact", &V::prompt_tokens_exact},
      {"steer_token", &V::steer_token, std::numeric_limits<int32_t>::min(), kMaxInt},
  };
  return rows;
}

const FieldRows<RunMeta>& meta_fields() {
  static const FieldRows<RunMeta> rows = {
      {"schema_version", &RunMeta::schema_version, 1, kRunMetaSchema},
      {"run_id", &RunMeta::run_id},
      {"name", &RunMeta::name},
      {"started_at", &RunMeta::started_at},
      {"finished_at", &RunMeta::finished_at},
      {"error", &RunMeta::error},
      {"command_line", &RunMeta::command_line},
      {"resumed_at", &RunMeta::resumed_at},
      {"hosts", &RunMeta::hosts},
  };
  return rows;
}

// Reads the rows of a struct and keeps every other key in its `untyped`.
template <typename S>
S read_struct(const JsonFields& f, const FieldRows<S>& rows,
              std::initializer_list<const char*> typed_elsewhere = {}) {
  S s;
  read_rows(f, s, rows);
  s.untyped = f.rest(rows.keys(typed_elsewhere));
  return s;
}

template <typename S>
nlohmann::json write_struct(const S& s, const FieldRows<S>& rows) {
  nlohmann::json j = s.untyped;
  write_rows(s, rows, j);
  return j;
}

BandwidthFacts bandwidth_from(const JsonFields& f) {
  BandwidthFacts b = read_struct(f, bandwidth_fields(), {"by_threads"});
  for (const JsonFields& t : f.objects("by_threads"))
    b.by_threads.push_back(
        {static_cast<int>(t.integer("threads", 0, kMaxCpus, 0)), t.number("gbps", 0, 1 << 30, 0)});
  return b;
}

ShardRef shard_from(const JsonFields& f) {
  ShardRef s = read_struct(f, shard_fields(), {"contexts"});
  if (!f.has("plan_id") || !f.has("index") || !f.has("count"))
    f.fail(f.has("plan_id") ? (f.has("index") ? "count" : "index") : "plan_id",
           "the plan id, index and count of the shard");
  if (s.index >= s.count) f.fail("index", fmt::format("a shard index below count {}", s.count));
  for (const auto& c : f.array("contexts")) {
    if (!c.is_array() || c.size() != 2 || !c[0].is_number_unsigned() || !c[1].is_number_unsigned())
      f.fail("contexts", "a list of [model, context] index pairs");
    s.contexts.emplace_back(c[0].get<uint64_t>(), c[1].get<uint64_t>());
  }
  return s;
}

MergeFacts merge_from(const JsonFields& f) {
  MergeFacts m = read_struct(f, merge_fields(), {"missing_shards", "sources"});
  for (const auto& s : f.array("missing_shards")) {
    if (!s.is_number_unsigned() || s.get<uint64_t>() >= static_cast<uint64_t>(kMaxShardCount))
      f.fail("missing_shards", "a list of shard indices");
    m.missing_shards.push_back(static_cast<int>(s.get<uint64_t>()));
  }
  for (const JsonFields& s : f.objects("sources")) {
    MergeSource src = read_struct(s, source_fields(), {"node", "bandwidth"});
    if (s.has("node")) src.node = read_struct(s.object("node"), node_fields());
    if (s.has("bandwidth")) src.bandwidth = bandwidth_from(s.object("bandwidth"));
    m.sources.push_back(std::move(src));
  }
  return m;
}

// "a, b or c": the names of every value of an enum, for messages.
template <typename E, size_t N>
std::string names_of(const E (&values)[N], const char* (*name)(E)) {
  std::string out;
  for (size_t i = 0; i < N; ++i) {
    if (i > 0) out += i + 1 == N ? " or " : ", ";
    out += name(values[i]);
  }
  return out;
}

// The value of `values` whose name is `text`, or nullopt.
template <typename E, size_t N>
std::optional<E> named(const E (&values)[N], const char* (*name)(E), std::string_view text) {
  for (E v : values)
    if (text == name(v)) return v;
  return std::nullopt;
}

void read_status_and_kind(const JsonFields& f, RunMeta& m) {
  const auto status = parse_run_status(f.text("status", run_status_name(RunStatus::kRunning)));
  if (!status) f.fail("status", run_status_names());
  m.status = *status;
  const auto kind = parse_run_kind(f.text("kind", run_kind_name(RunKind::kSweep)));
  if (!kind) f.fail("kind", run_kind_names() + " (a newer moesweep may write others)");
  m.kind = *kind;
}

void read_database(const JsonFields& f, RunMeta& m) {
  m.has_database = f.json().contains("database");
  if (f.has("database")) m.database = f.text("database");
}

// The typed keys of a run of `kind`; everything else stays in `kind_facts`.
std::vector<std::string> meta_keys(RunKind kind) {
  std::vector<std::string> keys =
      meta_fields().keys({"kind", "status", "database", "settings", "build", "machine_class",
                          "models", "shard", "node", "bandwidth", "merge", "plan", "outcome"});
  const std::vector<std::string> facts = kind == RunKind::kServe ? serve_fields().keys()
                                         : kind == RunKind::kSweep || kind == RunKind::kMerged
                                             ? sweep_fields().keys()
                                             : std::vector<std::string>{};
  keys.insert(keys.end(), facts.begin(), facts.end());
  return keys;
}

RunMeta meta_from(const JsonFields& f) {
  RunMeta m;
  read_rows(f, m, meta_fields());
  read_status_and_kind(f, m);
  read_database(f, m);
  for (const auto& [k, v] : f.object("settings").json().items()) m.settings[k] = v;
  if (f.has("build")) m.build = build_facts_from_json(f.json().at("build"), f.origin());
  if (f.has("machine_class"))
    m.machine_class = machine_class_from_json(f.json().at("machine_class"), f.origin());
  for (const JsonFields& model : f.objects("models"))
    m.models.push_back(read_struct(model, model_fields()));
  if (f.has("shard")) m.shard = shard_from(f.object("shard"));
  if (f.has("node")) m.node = read_struct(f.object("node"), node_fields());
  if (f.has("bandwidth")) m.bandwidth = bandwidth_from(f.object("bandwidth"));
  if (f.has("merge")) m.merge = merge_from(f.object("merge"));
  if (f.has("plan")) m.plan = read_struct(f.object("plan"), plan_fields());
  if (f.has("outcome")) m.outcome = read_struct(f.object("outcome"), outcome_fields(m.kind));
  if (m.kind == RunKind::kSweep || m.kind == RunKind::kMerged)
    read_rows(f, m.sweep.emplace(), sweep_fields());
  if (m.kind == RunKind::kServe) read_rows(f, m.serve.emplace(), serve_fields());
  m.kind_facts = f.rest(meta_keys(m.kind));
  return m;
}

}  // namespace

const char* run_status_name(RunStatus s) {
  switch (s) {
    case RunStatus::kRunning:
      return "running";
    case RunStatus::kComplete:
      return "complete";
    case RunStatus::kInterrupted:
      return "interrupted";
    case RunStatus::kPointsFailed:
      return "points_failed";
    case RunStatus::kFailed:
      return "failed";
  }
  return "unknown";
}

std::optional<RunStatus> parse_run_status(std::string_view name) {
  return named(kRunStatuses, run_status_name, name);
}

std::string run_status_names() {
  return names_of(kRunStatuses, run_status_name);
}

const char* run_kind_name(RunKind k) {
  static constexpr const char* kNames[] = {"sweep", "merged", "serve", "routing-trace"};
  static_assert(std::size(kNames) == std::size(kRunKinds), "a name for every kind");
  return kNames[static_cast<size_t>(k)];
}

std::optional<RunKind> parse_run_kind(std::string_view name) {
  return named(kRunKinds, run_kind_name, name);
}

std::string run_kind_names() {
  return names_of(kRunKinds, run_kind_name);
}

BuildFacts build_facts_from_json(const nlohmann::json& j, const std::string& origin) {
  const JsonFields f(j, origin, "build");
  BuildFacts b = read_struct(f, build_fields(), {"engine", "cpu"});
  b.engine = read_struct(f.object("engine"), engine_fields());
  b.cpu = read_struct(f.object("cpu"), cpu_fields());
  return b;
}

nlohmann::json to_json(const BuildFacts& b) {
  nlohmann::json j = write_struct(b, build_fields());
  j["engine"] = write_struct(b.engine, engine_fields());
  j["cpu"] = write_struct(b.cpu, cpu_fields());
  return j;
}

RunModelFacts model_facts_from_json(const nlohmann::json& j, const std::string& origin) {
  return read_struct(JsonFields(j, origin, "models[]"), model_fields());
}

nlohmann::json to_json(const RunModelFacts& m) {
  return write_struct(m, model_fields());
}
nlohmann::json to_json(const NodeFacts& n) {
  return write_struct(n, node_fields());
}

BandwidthFacts bandwidth_facts_from_json(const nlohmann::json& j, const std::string& origin) {
  return bandwidth_from(JsonFields(j, origin, "bandwidth"));
}

NodeFacts node_facts_from_json(const nlohmann::json& j, const std::string& origin) {
  return read_struct(JsonFields(j, origin, "node"), node_fields());
}

nlohmann::json to_json(const BandwidthFacts& b) {
  nlohmann::json j = write_struct(b, bandwidth_fields());
  j["by_threads"] = nlohmann::json::array();
  for (const ThreadBandwidth& t : b.by_threads)
    j["by_threads"].push_back({{"threads", t.threads}, {"gbps", t.gbps}});
  return j;
}

nlohmann::json to_json(const ShardRef& s) {
  nlohmann::json j = write_struct(s, shard_fields());
  j["contexts"] = nlohmann::json::array();
  for (const auto& [model, context] : s.contexts) j["contexts"].push_back({model, context});
  return j;
}

nlohmann::json to_json(const MergeFacts& m) {
  nlohmann::json j = write_struct(m, merge_fields());
  j["missing_shards"] = m.missing_shards;
  j["sources"] = nlohmann::json::array();
  for (const MergeSource& s : m.sources) {
    nlohmann::json src = write_struct(s, source_fields());
    src["node"] = s.node ? to_json(*s.node) : nlohmann::json(nullptr);
    src["bandwidth"] = s.bandwidth ? to_json(*s.bandwidth) : nlohmann::json(nullptr);
    j["sources"].push_back(std::move(src));
  }
  return j;
}

nlohmann::json to_json(const PlanSummary& plan) {
  return write_struct(plan, plan_fields());
}

nlohmann::json to_json(const RunMeta& m) {
  nlohmann::json j = m.kind_facts;
  write_rows(m, meta_fields(), j);
  j["kind"] = run_kind_name(m.kind);
  j["status"] = run_status_name(m.status);
  if (m.has_database || m.database)
    j["database"] = m.database ? nlohmann::json(*m.database) : nlohmann::json(nullptr);
  if (!m.settings.empty() || m.kind == RunKind::kSweep || m.kind == RunKind::kMerged)
    j["settings"] = m.settings;
  if (m.build) j["build"] = to_json(*m.build);
  if (m.machine_class) j["machine_class"] = to_json(*m.machine_class);
  if (!m.models.empty()) {
    j["models"] = nlohmann::json::array();
    for (const RunModelFacts& model : m.models) j["models"].push_back(to_json(model));
  }
  if (m.shard) j["shard"] = to_json(*m.shard);
  if (m.node) j["node"] = to_json(*m.node);
  if (m.bandwidth) j["bandwidth"] = to_json(*m.bandwidth);
  if (m.merge) j["merge"] = to_json(*m.merge);
  if (m.plan) j["plan"] = to_json(*m.plan);
  if (m.outcome) j["outcome"] = write_struct(*m.outcome, outcome_fields(m.kind));
  if (m.sweep) write_rows(*m.sweep, sweep_fields(), j);
  if (m.serve) write_rows(*m.serve, serve_fields(), j);
  return j;
}

RunMeta run_meta_from_json(const nlohmann::json& j, const std::string& origin,
                           const std::string& dir_name) {
  const nlohmann::json migrated = migrate_run_meta(j, origin, dir_name);
  RunMeta m = meta_from(JsonFields(migrated, origin));
  return m;
}

RunMeta read_run_meta(const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / "meta.json";
  const nlohmann::json j = read_json_file(file, "run metadata");
  RunMeta m = run_meta_from_json(j, file.string(), dir.lexically_normal().filename().string());
  m.run_dir = dir.string();
  return m;
}

std::optional<RunMeta> read_run_meta_if_present(const std::filesystem::path& dir) {
  std::error_code ec;
  const auto status = std::filesystem::symlink_status(dir / "meta.json", ec);
  if (status.type() == std::filesystem::file_type::not_found) return std::nullopt;
  return read_run_meta(dir);
}

void write_run_meta(const std::filesystem::path& dir, const RunMeta& meta) {
  write_file_atomically(dir / "meta.json", to_json(meta).dump(2) + "\n");
}

MachineClass machine_class_of(const RunMeta& meta) {
  if (meta.machine_class) return *meta.machine_class;
  if (meta.build) return machine_class_from_build(*meta.build, std::nullopt);
  return MachineClass{};
}

}  // namespace moesweep
