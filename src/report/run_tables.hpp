#pragma once
// The report's rendering of a run's records into tables.md, sweep-bench/ and
// the noise summary meta.json keeps; `sweep`, `l3-run` and `merge` write the
// same (RunSession::write_tables, write_run_tables in src/sweep).
#include <vector>

#include "report/sweet_spot.hpp"
#include "results/record.hpp"
#include "results/run_tables.hpp"

namespace moesweep {

RunTables render_run_tables(const std::vector<Record>& records, const SweetSpotOptions& keep = {});

}  // namespace moesweep
