#include "results/run_source.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "results/sqlite_store.hpp"
#include "util/decode_floor.hpp"
#include "util/error.hpp"
#include "util/json_error.hpp"
#include "util/json_fields.hpp"
#include "util/json_file.hpp"

namespace moesweep {

namespace {

const char* type_name(const nlohmann::json& v) {
  return v.is_number()    ? "a number"
         : v.is_boolean() ? "true/false"
         : v.is_string()  ? "a string"
         : v.is_object()  ? "an object"
         : v.is_array()   ? "an array"
                          : "null";
}

// An int field's value: true/false, or a whole number an int holds (never narrowed).
bool int_fits(const nlohmann::json& got) {
  constexpr double lo = std::numeric_limits<int>::min(), hi = std::numeric_limits<int>::max();
  if (got.is_boolean()) return true;
  if (got.is_number_unsigned()) return got.get<uint64_t>() <= static_cast<uint64_t>(hi);
  if (got.is_number_integer()) return got.get<int64_t>() >= lo && got.get<int64_t>() <= hi;
  if (!got.is_number_float()) return false;
  const double v = got.get<double>();
  return std::isfinite(v) && v == std::floor(v) && v >= lo && v <= hi;
}

// A value of `got` is read where `want` is written (nlohmann converts
// true/false to numbers, nothing else; an int must hold it).
bool type_fits(const nlohmann::json& want, const nlohmann::json& got) {
  if (want.is_null()) return true;  // the writer leaves it open (e.g. a NaN statistic)
  if (want.is_number_integer()) return int_fits(got);
  if (want.is_number()) return got.is_number() || got.is_boolean();
  return want.type() == got.type();
}

// The first field of `line` whose type differs from what record_to_json
// writes for it (`reference`), as "'pp_phase/t/mean' is a string"; "" if none.
std::string wrong_field(const nlohmann::json& line, const nlohmann::json& reference,
                        const std::string& prefix = "") {
  for (const auto& [key, value] : line.items()) {
    if (!reference.contains(key)) continue;  // fields we do not read are left alone
    const nlohmann::json& want = reference.at(key);
    if (!type_fits(want, value)) {
      return fmt::format(
          "'{}{}' is {} where {} belongs", prefix, key,
          value.is_number() ? json_excerpt(value) : type_name(value),
          want.is_number_integer() ? "an integer from -2^31 to 2^31-1" : type_name(want));
    }
    if (want.is_object() && !want.empty()) {
      std::string inner = wrong_field(value, want, prefix + key + "/");
      if (!inner.empty()) return inner;
    }
  }
  return "";
}

// What no measurement can be: a negative token count or depth, a negative
// or non-finite time or speed (compare and the statistics would take it), or
// a sample past the physical floor of a decode (util/decode_floor.hpp): a time
// below it, a speed beyond the tokens it could have decoded in that floor.
std::string impossible_measurement(const Record& r) {
  for (const auto& [name, count] : {std::pair{"pp", r.params.pp}, std::pair{"tg", r.params.tg},
                                    std::pair{"n_kv", r.params.n_kv}})
    if (count < 0)
      return fmt::format("'{}' is {}, a count of tokens that cannot be negative", name, count);
  // A prefill's micro-batch is its ubatch (all of it when the line does not say).
  const int pp_step =
      std::max(1, r.params.n_ubatch > 0 ? std::min(r.params.pp, r.params.n_ubatch) : r.params.pp);
  for (const auto& [name, phase, planned, per_step] :
       {std::tuple{"pp", &r.pp, r.params.pp, pp_step}, std::tuple{"tg", &r.tg, r.params.tg, 1}}) {
    for (const auto& [what, values] : {std::pair{"seconds", &phase->seconds},
                                       std::pair{"tokens per second", &phase->tokens_per_s}})
      for (const double v : *values)
        if (!std::isfinite(v) || v < 0)
          return fmt::format("the {} phase has {} of {}, which no measurement gives", name, what,
                             v);
    const int64_t tokens = phase->tokens_run > 0 ? phase->tokens_run : planned;
    if (tokens <= 0) continue;
    const double floor = decode_floor_s(tokens, per_step);
    for (const double s : phase->seconds)
      if (s > 0 && s < floor)
        return fmt::format(
            "the {} phase has a sample of {:g} s for {} tokens, below the {:g} s "
            "no engine can beat",
            name, s, tokens, floor);
    for (const double v : phase->tokens_per_s)
      if (v > tokens / floor)
        return fmt::format(
            "the {} phase has a sample of {:g} tokens per second, beyond any "
            "engine's {:g} (a micro-batch of {} takes at least {:g} s)",
            name, v, tokens / floor, per_step, kMinSecondsPerStep);
  }
  return "";
}

UserError bad_record(const std::string& where, const std::string& why) {
  return UserError(fmt::format("{}: {}", where, why),
                   "one JSON record per line, as moesweep's records.jsonl or sweep-bench's JSONL "
                   "writes them",
                   "fix or remove that line, or name another file");
}

}  // namespace

Record checked_record(const nlohmann::json& j, const std::string& where) {
  static const nlohmann::json reference = nlohmann::json::parse(record_to_json(Record{}).dump());
  if (j.is_discarded())
    throw bad_record(where, fmt::format("not valid JSON (a syntax error, a number past a double, "
                                        "or arrays/objects nested deeper than {} levels)",
                                        kMaxJsonDepth));
  if (!j.is_object()) throw bad_record(where, "not a JSON object");
  if (!j.contains("n_kv")) {
    throw bad_record(where, "a JSON object but not a record (it has no 'n_kv')");
  }
  if (const std::string wrong = wrong_field(j, reference); !wrong.empty()) {
    throw bad_record(where, wrong);
  }
  Record r;
  try {
    r = record_from_json(j);
  } catch (const nlohmann::json::exception& e) {  // a type inside an array, say
    throw bad_record(where, fmt::format("a field has the wrong type ({})", json_error_text(e)));
  }
  if (const std::string wrong = impossible_measurement(r); !wrong.empty())
    throw bad_record(where, wrong);
  return r;
}

namespace {
// Each line of a JSON lines file checked as a record ("FILE:LINE" in errors).
RecordsFile checked_records(JsonlFile lines, const std::filesystem::path& file) {
  RecordsFile out;
  out.torn = std::move(lines.torn);
  for (const JsonlLine& line : lines.lines)
    out.records.push_back(
        checked_record(line.value, fmt::format("{}:{}", file.string(), line.number)));
  return out;
}
}  // namespace

RecordsFile read_records_file(const std::filesystem::path& file) {
  return checked_records(read_jsonl_file(file, "records file"), file);
}

RecordsFile read_records(std::istream& in, const std::filesystem::path& file) {
  return checked_records(read_jsonl(in, file, "records file"), file);
}

std::vector<Record> read_records_jsonl(const std::filesystem::path& file) {
  return read_records_file(file).records;
}

namespace {

// Appends a file's records to `run`; a torn last line becomes a note.
void take_records(const std::filesystem::path& file, LoadedRun& run) {
  RecordsFile f = read_records_file(file);
  run.records.insert(run.records.end(), f.records.begin(), f.records.end());
  if (f.torn) run.notes.push_back(torn_line_note(file, *f.torn));
}

// The database's copy of a run's meta.json, read like the file.
std::optional<RunMeta> meta_of(const RunInfo& info, const std::filesystem::path& db_path) {
  if (info.meta.is_object() && info.meta.empty()) return std::nullopt;
  return run_meta_from_json(info.meta, fmt::format("{} (run {})", db_path.string(), info.run_id),
                            info.run_id);
}

std::string dir_label(const std::filesystem::path& dir) {
  auto clean = dir.lexically_normal();
  if (!clean.has_filename()) clean = clean.parent_path();
  return clean.filename().string();
}

// A baseline set: run directories side by side (moesweep gate --update
// keeps the last few), pooled; false when `dir` holds none.
bool load_baseline_set(const std::filesystem::path& dir, LoadedRun& run) {
  std::error_code ec;
  std::vector<std::filesystem::path> members;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.is_directory() && std::filesystem::exists(e.path() / "records.jsonl")) {
      members.push_back(e.path());
    }
  }
  if (members.empty()) return false;
  std::sort(members.begin(), members.end());  // run ids start with their time
  run.source = fmt::format("baseline set of {} runs", members.size());
  run.pooled_runs = static_cast<int>(members.size());
  for (const auto& member : members) take_records(member / "records.jsonl", run);
  run.meta = read_run_meta_if_present(members.back());
  return true;
}

LoadedRun load_run_dir(const std::string& what, const std::filesystem::path& path,
                       const std::filesystem::path& db_path) {
  std::error_code ec;
  LoadedRun run;
  run.source = "run directory";
  run.run_dir = path.string();
  run.label = dir_label(path);
  run.meta = read_run_meta_if_present(path);
  run.run_id = run.meta ? run.meta->run_id : run.label;
  if (std::filesystem::exists(path / "records.jsonl", ec)) {
    take_records(path / "records.jsonl", run);
    return run;
  }
  if (load_baseline_set(path, run)) return run;
  // A directory without records.jsonl: the database may still hold its points.
  if (std::filesystem::exists(db_path, ec)) {
    SqliteStore store(db_path, SqliteStore::Mode::kReadOnly);
    if (auto info = store.find_run(what)) {
      run.records = store.load_records(info->run_id);
      return run;
    }
  }
  throw UserError(fmt::format("'{}' has no records.jsonl", what),
                  "a run directory written by `moesweep sweep`",
                  "name the run directory printed by the sweep, or its run id with --db");
}

LoadedRun load_jsonl_file(const std::filesystem::path& path) {
  LoadedRun run;
  run.source = "JSONL file";
  run.label = path.filename().string();
  take_records(path, run);
  if (path.filename() == "records.jsonl") {
    run.run_dir = path.parent_path().string();
    run.meta = read_run_meta_if_present(path.parent_path());
    run.label = dir_label(path.parent_path());
  }
  run.run_id =
      run.meta ? run.meta->run_id : (run.records.empty() ? "" : run.records.front().run_id);
  return run;
}

}  // namespace

LoadedRun load_run(const std::string& what, const std::filesystem::path& db_path) {
  std::error_code ec;
  const std::filesystem::path path(what);
  if (std::filesystem::is_directory(path, ec)) return load_run_dir(what, path, db_path);
  if (std::filesystem::is_regular_file(path, ec)) return load_jsonl_file(path);
  if (std::filesystem::exists(db_path, ec)) {
    SqliteStore store(db_path, SqliteStore::Mode::kReadOnly);
    if (auto info = store.find_run(what)) {
      LoadedRun run;
      run.source = "database";
      run.run_id = info->run_id;
      run.label = info->run_id;
      run.meta = meta_of(*info, db_path);
      run.run_dir = info->run_dir;
      run.records = store.load_records(info->run_id);
      return run;
    }
  }
  throw UserError(fmt::format("'{}' is neither a run directory, a JSONL file, nor a run id in '{}'",
                              what, db_path.string()),
                  "a run directory (results/runs/...), a records.jsonl or sweep-bench JSONL "
                  "file, or a run id stored in the database",
                  "check the name; `ls results/runs` shows run directories, --db picks the "
                  "database");
}

}  // namespace moesweep
