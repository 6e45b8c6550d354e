#pragma once
// The one list of MemoryFacts' fields (record.hpp): their JSONL key (inside
// the record's "memory" object), CSV column, table header and meaning. The
// JSONL object, the CSV columns and the tables follow this table, as
// point_fields() does for the parameters.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "results/record.hpp"
#include "util/rows.hpp"

namespace moesweep {

struct MemoryField {
  std::optional<uint64_t> MemoryFacts::*member;
  const char* json;    // key in the record's "memory" object (bytes)
  const char* csv;     // records.csv column
  const char* header;  // table column, in MiB
  const char* what;    // one line for the docs and the legend
  bool terminal;       // in the table a terminal gets (the figures a person decides on)
};

// A row's key in Rows (util/rows.hpp): its JSONL name.
inline const char* row_key(const MemoryField& f) {
  return f.json;
}

const Rows<MemoryField>& memory_fields();

// {"model_resident_bytes": N, ..., "unavailable": {"field": "why"}}; absent
// figures are left out (their reason is under "unavailable").
nlohmann::json memory_to_json(const MemoryFacts& m);
// Tolerant: a record without "memory" (older runs) or with ill-typed values
// reads as no figures.
MemoryFacts memory_from_json(const nlohmann::json& j);
// "12.3" (MiB) or "n/a".
std::string memory_mib_cell(const std::optional<uint64_t>& bytes);

}  // namespace moesweep
