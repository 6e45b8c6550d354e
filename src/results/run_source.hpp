#pragma once
// Finding a run's records from whatever the user names on the command line:
// a run directory (records.jsonl + meta.json), a JSONL file (ours, a
// published reference table, or plain sweep-bench output), or a run id in
// the results database. compare, report and export all read runs this way.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <istream>
#include <string>
#include <vector>

#include "results/record.hpp"
#include "results/run_meta.hpp"
#include "util/jsonl_file.hpp"

namespace moesweep {

struct LoadedRun {
  std::string label;   // short name for tables: run id, directory or file name
  std::string source;  // "run directory", "JSONL file" or "database"
  std::string run_id;
  std::string run_dir;             // "" unless the run came from a directory
  std::optional<RunMeta> meta;     // meta.json, when there is one (a broken one is an error)
  std::vector<Record> records;     // in file / plan order
  std::vector<std::string> notes;  // for the user: a torn last line left out, say
  // A baseline set (a directory of run directories) holds several runs of the
  // same sweep; compare pools their samples per point, so the run-to-run
  // spread of the machine is part of what "noise" means.
  int pooled_runs = 1;
  // One engine of a run whose engines took turns repetition by repetition
  // (results/engine_sides.hpp): its repetition i of a point ran beside the
  // other engines' repetition i, so compare can test the pairs.
  bool interleaved = false;
};

// Tries, in order: an existing directory (a run directory, or a baseline set:
// a directory whose subdirectories are run directories), an existing file, a
// run id (or unique prefix, or run directory path) in the database at `db_path`.
// Throws UserError naming everything it tried when nothing matches.
LoadedRun load_run(const std::string& what, const std::filesystem::path& db_path);

// records.jsonl (or sweep-bench's JSONL): one record per non-empty line,
// every field checked for type and range (integers never narrowed); a line
// that is not a record is a UserError naming the file and line. A torn last
// line (a killed run's) is left out and returned apart.
struct RecordsFile {
  std::vector<Record> records;
  std::optional<TornLine> torn;
};
RecordsFile read_records_file(const std::filesystem::path& file);
// The same from a stream of the file's bytes, `file` naming it in errors
// (read_records_file opens the file and reads it this way).
RecordsFile read_records(std::istream& in, const std::filesystem::path& file);
// One record's JSON, checked as the reader checks a line (`where` names it in
// the UserError: "FILE:LINE", or the database and run).
Record checked_record(const nlohmann::json& j, const std::string& where);
// The records alone (a torn last line left out).
std::vector<Record> read_records_jsonl(const std::filesystem::path& file);

}  // namespace moesweep
