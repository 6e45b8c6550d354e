#include "results/run_source.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

#include "results/sqlite_store.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"

namespace moesweep {

std::vector<Record> read_records_jsonl(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) {
    throw UserError(fmt::format("cannot read '{}'", file.string()), "a readable JSONL file",
                    "check the path");
  }
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) lines.push_back(line);
  }
  std::vector<Record> records;
  for (size_t i = 0; i < lines.size(); ++i) {
    auto j = parse_json_or_discarded(lines[i]);
    if (j.is_discarded() || !j.is_object()) {
      // A sweep killed mid-write can leave half a last line; everything before it stands.
      if (i + 1 == lines.size() && !lines[i].empty() && lines[i].back() != '}') break;
      throw UserError(fmt::format("'{}' line {} is not a JSON object", file.string(), i + 1),
                      "one JSON record per line (records.jsonl, sweep-bench JSONL)",
                      "fix or remove that line");
    }
    records.push_back(record_from_json(j));
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

}  // namespace

LoadedRun load_run(const std::string& what, const std::filesystem::path& db_path) {
  std::error_code ec;
  const std::filesystem::path path(what);
  LoadedRun run;
  if (std::filesystem::is_directory(path, ec)) {
    run.source = "run directory";
    run.run_dir = path.string();
    run.label = dir_label(path);
    run.meta = read_meta(path);
    run.run_id = run.meta.value("run_id", run.label);
    if (std::filesystem::exists(path / "records.jsonl", ec)) {
      run.records = read_records_jsonl(path / "records.jsonl");
      return run;
    }
    // A baseline set: run directories side by side (scripts/regress --update keeps the last few).
    std::vector<std::filesystem::path> members;
    for (const auto& e : std::filesystem::directory_iterator(path, ec)) {
      if (e.is_directory() && std::filesystem::exists(e.path() / "records.jsonl")) {
        members.push_back(e.path());
      }
    }
    if (!members.empty()) {
      std::sort(members.begin(), members.end());  // run ids start with their time
      run.source = fmt::format("baseline set of {} runs", members.size());
      run.pooled_runs = static_cast<int>(members.size());
      for (const auto& member : members) {
        auto records = read_records_jsonl(member / "records.jsonl");
        run.records.insert(run.records.end(), records.begin(), records.end());
      }
      run.meta = read_meta(members.back());
      return run;
    }
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
  if (std::filesystem::is_regular_file(path, ec)) {
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
  if (std::filesystem::exists(db_path, ec)) {
    SqliteStore store(db_path, SqliteStore::Mode::kReadOnly);
    if (auto info = store.find_run(what)) {
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
