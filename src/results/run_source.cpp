#include "results/run_source.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

#include "results/sqlite_store.hpp"
#include "util/error.hpp"
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

// A value of `got` is read where `want` is written (nlohmann converts
// true/false to numbers, nothing else).
bool type_fits(const nlohmann::json& want, const nlohmann::json& got) {
  if (want.is_null()) return true;  // the writer leaves it open (e.g. a NaN statistic)
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
      return fmt::format("'{}{}' is {} where {} belongs", prefix, key, type_name(value),
                         type_name(want));
    }
    if (want.is_object() && !want.empty()) {
      std::string inner = wrong_field(value, want, prefix + key + "/");
      if (!inner.empty()) return inner;
    }
  }
  return "";
}

UserError bad_line(const std::filesystem::path& file, size_t line, const std::string& why) {
  return UserError(fmt::format("{}:{}: {}", file.string(), line, why),
                   "one JSON record per line, as moesweep's records.jsonl or sweep-bench's JSONL "
                   "writes them",
                   "fix or remove that line, or name another file");
}

Record parse_record_line(const std::filesystem::path& file, size_t line_no,
                         const nlohmann::json& j) {
  static const nlohmann::json reference = nlohmann::json::parse(record_to_json(Record{}).dump());
  if (!j.contains("n_kv")) {
    throw bad_line(file, line_no, "a JSON object but not a record (it has no 'n_kv')");
  }
  if (const std::string wrong = wrong_field(j, reference); !wrong.empty()) {
    throw bad_line(file, line_no, wrong);
  }
  try {
    return record_from_json(j);
  } catch (const nlohmann::json::exception& e) {  // a type inside an array, say
    throw bad_line(file, line_no, fmt::format("a field has the wrong type ({})", e.what()));
  }
}

}  // namespace

std::vector<Record> read_records_jsonl(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) {
    throw UserError(fmt::format("cannot read '{}'", file.string()), "a readable JSONL file",
                    "check the path");
  }
  std::vector<std::pair<size_t, std::string>> lines;  // (line number, text)
  size_t line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") != std::string::npos) lines.emplace_back(line_no, line);
  }
  std::vector<Record> records;
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto& [number, text] = lines[i];
    auto j = parse_json_or_discarded(text);
    if (j.is_discarded() || !j.is_object()) {
      // A sweep killed mid-write can leave half a last record; everything
      // before it stands. Only a started, unfinished object is that: a last
      // line of plain text is not a record, torn or not.
      const size_t first = text.find_first_not_of(" \t");
      const bool torn = j.is_discarded() && text[first] == '{' && text.back() != '}';
      if (i + 1 == lines.size() && torn) break;
      throw bad_line(file, number, "not a JSON object");
    }
    records.push_back(parse_record_line(file, number, j));
  }
  return records;
}

namespace {

nlohmann::json read_meta(const std::filesystem::path& dir) {
  std::ifstream in(dir / "meta.json");
  if (!in) return nlohmann::json::object();
  auto j = parse_json_or_discarded(
      std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
  return j.is_object() ? j : nlohmann::json::object();
}

std::string dir_label(const std::filesystem::path& dir) {
  auto clean = dir.lexically_normal();
  if (!clean.has_filename()) clean = clean.parent_path();
  return clean.filename().string();
}

// A baseline set: run directories side by side (scripts/regress --update
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
  for (const auto& member : members) {
    auto records = read_records_jsonl(member / "records.jsonl");
    run.records.insert(run.records.end(), records.begin(), records.end());
  }
  run.meta = read_meta(members.back());
  return true;
}

LoadedRun load_run_dir(const std::string& what, const std::filesystem::path& path,
                       const std::filesystem::path& db_path) {
  std::error_code ec;
  LoadedRun run;
  run.source = "run directory";
  run.run_dir = path.string();
  run.label = dir_label(path);
  run.meta = read_meta(path);
  run.run_id = run.meta.value("run_id", run.label);
  if (std::filesystem::exists(path / "records.jsonl", ec)) {
    run.records = read_records_jsonl(path / "records.jsonl");
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
  run.records = read_records_jsonl(path);
  if (path.filename() == "records.jsonl") {
    run.run_dir = path.parent_path().string();
    run.meta = read_meta(path.parent_path());
    run.label = dir_label(path.parent_path());
  }
  run.run_id = run.meta.value("run_id", run.records.empty() ? "" : run.records.front().run_id);
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
      run.meta = info->meta;
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
