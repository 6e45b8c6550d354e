#pragma once
// Finding a run's records from whatever the user names on the command line:
// a run directory (records.jsonl + meta.json), a JSONL file (ours, a
// published reference table, or plain sweep-bench output), or a run id in
// the results database. compare, report and export all read runs this way.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "results/record.hpp"

namespace moesweep {

struct LoadedRun {
  std::string label;   // short name for tables: run id, directory or file name
  std::string source;  // "run directory", "JSONL file" or "database"
  std::string run_id;
  std::string run_dir;                             // "" unless the run came from a directory
  nlohmann::json meta = nlohmann::json::object();  // meta.json, when there is one
  std::vector<Record> records;                     // in file / plan order
  // A baseline set (a directory of run directories) holds several runs of the
  // same sweep; compare pools their samples per point, so the run-to-run
  // spread of the machine is part of what "noise" means.
  int pooled_runs = 1;
};

// Tries, in order: an existing directory (a run directory, or a baseline set:
// a directory whose subdirectories are run directories), an existing file, a
// run id (or unique prefix, or run directory path) in the database at `db_path`.
// Throws UserError naming everything it tried when nothing matches.
LoadedRun load_run(const std::string& what, const std::filesystem::path& db_path);

// One record per non-empty line; a line that is not JSON is a UserError
// naming the file and line (a torn last line from a killed run is skipped).
std::vector<Record> read_records_jsonl(const std::filesystem::path& file);

}  // namespace moesweep
