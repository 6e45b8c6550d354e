#include "sweep/run_storage.hpp"

#include <fmt/format.h>

#include <map>

#include "engine/engine.hpp"
#include "engine/engine_util.hpp"
#include "model/gguf_inspect.hpp"
#include "results/run_source.hpp"
#include "results/sqlite_store.hpp"
#include "run/run_directory.hpp"
#include "sweep/plan_cost.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"
#include "util/json_file.hpp"
#include "util/jsonl_file.hpp"

namespace moesweep {

std::optional<std::filesystem::path> run_database(const DatabaseFlags& flags,
                                                  const RunMeta* resumed_meta) {
  if (!resumed_meta || !resumed_meta->has_database) {  // a new run, or one from before
    if (flags.no_db) return std::nullopt;
    if (flags.db.empty()) return std::filesystem::path();  // the store says what is wrong
    return std::filesystem::absolute(flags.db);
  }
  std::optional<std::filesystem::path> db;
  if (resumed_meta->database) db = *resumed_meta->database;
  const bool conflict =
      (flags.no_db && db) || (flags.db_given && (!db || !same_file(flags.db, db->string())));
  if (conflict) {
    throw UserError(
        fmt::format("the resumed run writes to {}, but {} was given",
                    db ? "database '" + db->string() + "'" : "no database (it ran with --no-db)",
                    flags.no_db && db ? "--no-db" : "--db '" + flags.db + "'"),
        "the run's own database: the resumed points belong beside the earlier ones",
        "drop that flag (--resume uses the run's database), or start a new sweep");
  }
  return db;
}

void refuse_flags_on_resume(const std::vector<std::string>& given) {
  if (given.empty()) return;
  std::string names;
  for (const std::string& g : given) names += (names.empty() ? "" : ", ") + g;
  throw UserError(fmt::format("--resume continues a run with its own settings, so {} would be "
                              "ignored",
                              names),
                  "--resume DIR with at most --quiet, --dry-run, --keep-pp, --keep-tg and the "
                  "run's own --db",
                  "drop those flags to finish the run as it started, or start a new sweep with "
                  "them");
}

void check_model_files(const Plan& plan) {
  for (const ModelGroup& mg : plan.models)
    if (!mg.choice.file.empty()) inspect_gguf(mg.choice.file);
}

std::vector<Record> load_records(const std::filesystem::path& jsonl) {
  return std::filesystem::exists(jsonl) ? read_records_jsonl(jsonl) : std::vector<Record>{};
}

void check_resumable(const RunMeta& meta) {
  if (meta.kind != RunKind::kSweep) {
    throw UserError(
        fmt::format("run {} is a {} run, not a sweep", meta.run_id, run_kind_name(meta.kind)),
        "a run directory of `moesweep sweep`", "start a new sweep instead");
  }
  if (meta.status == RunStatus::kComplete) {
    throw UserError(fmt::format("run {} already completed", meta.run_id),
                    "an interrupted run (status interrupted or running)",
                    "start a new sweep instead of --resume");
  }
  const std::string then = meta.build ? meta.build->engine.commit : "";
  const std::string now = engine_facts().commit;
  if (then != now) {
    throw UserError(fmt::format("the run was measured with engine {} but this build has {}",
                                then.empty() ? "(not recorded)" : then, now),
                    "the same engine build", "rebuild with the run's engine, or start a new run");
  }
  if (meta.settings.empty()) {
    throw UserError("meta.json has no 'settings' to resume from", "a run made by moesweep sweep",
                    "start a new sweep");
  }
  // Its unset flags meant other defaults then (-fa off, -ngl 0, mmap, ctx 4096):
  // resumed now, no point would match what it measured.
  if (meta.sweep && meta.sweep->spec.is_object() && meta.sweep->spec.contains("use_mmap")) {
    throw UserError(
        fmt::format("run {} was made by an older moesweep whose defaults were not llama-bench's",
                    meta.run_id),
        "a run made with today's defaults (-fa auto, -ngl -1, -lm auto, ctx from the depths)",
        "start a new sweep with the same flags");
  }
}

void check_models_unchanged(const RunMeta& meta) {
  for (const RunModelFacts& m : meta.models) {  // none when killed before a model was recorded
    if (m.path.empty() || m.sha256.empty()) continue;
    if (!std::filesystem::exists(m.path)) {
      throw UserError(fmt::format("model '{}' of the interrupted run is gone", m.path),
                      "the same model file", "restore it, or start a new run");
    }
    const std::string now = model_fingerprint(m.path);
    if (now != m.sha256) {
      throw UserError(fmt::format("model '{}' changed since the run started (sha256 {} -> {})",
                                  m.path, m.sha256, now),
                      "the same model file", "start a new run for the new file");
    }
  }
}

std::vector<std::string> repair_run_files(const std::filesystem::path& run_dir) {
  std::vector<std::string> notes;
  for (const PointFile& f : point_files()) {
    const std::filesystem::path file = run_dir / f.name;
    if (const auto torn = f.json_lines ? repair_jsonl_tail(file) : repair_text_tail(file))
      notes.push_back(fmt::format("{}:{}: cut off a torn last line ({} bytes, kept in {}.torn)",
                                  file.string(), torn->number, torn->bytes.size(), f.name));
  }
  return notes;
}

std::optional<double> estimate_seconds(const Plan& plan, const std::filesystem::path& runs_dir) {
  return moesweep::estimate_seconds(plan, SpeedTable::from_runs(runs_dir));  // sweep/plan_cost.hpp
}

}  // namespace moesweep
