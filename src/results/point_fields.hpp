#pragma once
// The one list of PointParams' fields. The key string, the JSONL record, the
// CSV columns, the SQLite columns, compare's join key and the chart labels
// are all derived from it: a new axis is a member of PointParams plus one row
// in point_fields() (point_fields.cpp), nothing else.
#include <nlohmann/json.hpp>

#include <string>

#include "results/record.hpp"
#include "util/rows.hpp"

namespace moesweep {

class SqliteStmt;

using FieldMember = MemberOf<PointParams, std::string, int, bool, double>;

struct PointField {
  FieldMember member;
  const char* key;   // name in key_string() and in compare's --ignore/--on; nullptr: not in the key
  const char* json;  // our JSONL name; nullptr: written only under its sweep-bench name
  // sweep-bench's name and its place (1 = first) in sweep-bench's line; 0: not a sweep-bench key.
  const char* sweep_bench = nullptr;
  int sweep_bench_pos = 0;
  const char* label = nullptr;  // name in chart legends; nullptr: never in a label
  bool csv = false;             // a column of results.csv (named as `json`)
  bool sql = false;             // a column of the SQLite points table (named as `json`)
  bool threads_axis = false;    // the threads axis: x of threads charts, rows of threads tables
  bool cell = false;            // the cell within a configuration (pp, tg, n_kv): table rows
  // A JSONL line without the key reads as the blank value (0), not the
  // struct's default: such lines come from sweep-bench or predate the field.
  bool absent_is_blank = false;
  // In key_string() only when not blank: an axis added later leaves the keys
  // of every point that does not use it (stored runs, baselines) unchanged.
  bool key_only_when_set = false;
  std::string (*label_value)(const PointParams&) = nullptr;  // display override for labels
};

// In key_string() order; the CSV and SQLite columns follow this order too.
const Rows<PointField>& point_fields();

// Value as key_string() writes it (bool: true/false).
std::string field_text(const PointField& f, const PointParams& p);
// Value as a chart label shows it (bool: 0/1, or label_value).
std::string field_label(const PointField& f, const PointParams& p);
// The field holds its blank value: "", 0 or false.
bool field_is_blank(const PointField& f, const PointParams& p);
// Sets the field to its blank value: "", 0 or false (compare's --ignore).
void blank_field(const PointField& f, PointParams& p);
void field_to_json(const PointField& f, const PointParams& p, nlohmann::ordered_json& j,
                   const char* name);
// Reads the field from `j` (its sweep-bench name first); absent: default or blank.
void field_from_json(const PointField& f, const nlohmann::json& j, PointParams& p);
// Binds the field's value as a statement parameter (SQLite column).
void bind_field(const PointField& f, const PointParams& p, SqliteStmt& st, int index);
// The field's CSV and SQLite column: its JSONL name (or its sweep-bench name).
const char* column_name(const PointField& f);
// The field named `key` in key_string(), or nullptr.
const PointField* field_by_key(const std::string& key);

}  // namespace moesweep
