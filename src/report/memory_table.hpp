#pragma once
// The memory table of a run (issue 23): one row per model and context, with
// the figures of results/memory_fields.hpp in MiB (the peak RSS is the
// largest of the context's points) and how the engine's KV buffer agrees with
// kv_bytes_per_token x n_ctx. "" when no record carries memory figures (runs
// made before they were recorded).
#include <string>
#include <vector>

#include "results/record.hpp"
#include "util/terminal_text.hpp"

namespace moesweep {

// kCompact: the figures a person decides on (model resident, KV, compute,
// peak RSS) under short row labels; kWide (tables.md) every figure.
std::string memory_tables(const std::vector<Record>& records, TableWidth width = TableWidth::kWide);
// "+0.4%" (engine KV buffer against the expected size) or "n/a".
std::string kv_agreement(const MemoryFacts& m);

}  // namespace moesweep
