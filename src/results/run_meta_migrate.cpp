// meta.json's migrations (results/run_meta.hpp): each brings one schema to
// the next, so a run directory of any round reads as today's.
#include <fmt/format.h>

#include "results/run_meta.hpp"
#include "util/error.hpp"
#include "util/json_fields.hpp"

namespace moesweep {
namespace {

// Round 1 (schema 1) recorded a run stopped by an error as "interrupted"
// with its "error"; round 2 says "failed" (Ctrl-C alone stays interrupted).
void schema1_to_2(nlohmann::json& j) {
  if (j.value("status", nlohmann::json()) == run_status_name(RunStatus::kInterrupted) &&
      j.contains("error") && j["error"].is_string() && !j["error"].get<std::string>().empty())
    j["status"] = run_status_name(RunStatus::kFailed);
}

// Round 2 (schema 2) wrote no kind for sweeps and merged runs, no run id or
// name for routing traces, and no engine target before it could differ
// (every build was GGML_NATIVE then).
void schema2_to_3(nlohmann::json& j, const std::string& dir_name) {
  if (!j.contains("kind"))
    j["kind"] = run_kind_name(j.contains("merge") ? RunKind::kMerged : RunKind::kSweep);
  if (!j.contains("run_id") && !dir_name.empty()) j["run_id"] = dir_name;
  if (!j.contains("name") && j["kind"] == run_kind_name(RunKind::kRoutingTrace))
    j["name"] = "trace";
  if (j.contains("build") && j["build"].is_object() && !j["build"].contains("engine_target"))
    j["build"]["engine_target"] = "GGML_NATIVE";
}

}  // namespace

nlohmann::json migrate_run_meta(nlohmann::json j, const std::string& origin,
                                const std::string& dir_name) {
  const JsonFields f(j, origin);
  const int64_t version = f.integer("schema_version", 1, 1 << 20, 1);
  if (version > kRunMetaSchema) {
    throw UserError(fmt::format("{} has schema_version {}, from a newer moesweep", origin, version),
                    fmt::format("schema_version 1 to {} (this moesweep's)", kRunMetaSchema),
                    "read it with the moesweep that wrote it, or update this one");
  }
  // Unversioned files are round 1 or round 2: the first step changes nothing
  // in a round-2 file, so both take every step.
  if (version < 2) schema1_to_2(j);
  if (version < 3) schema2_to_3(j, dir_name);
  j["schema_version"] = kRunMetaSchema;
  return j;
}

}  // namespace moesweep
