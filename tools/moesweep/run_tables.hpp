#pragma once
// The report's rendering of a run's records into tables.md, sweep-bench/ and
// the noise summary meta.json keeps; `sweep` and `merge` write the same.
#include <vector>

#include "report/sweet_spot.hpp"
#include "results/record.hpp"
#include "sweep/run_session.hpp"

namespace moesweep::cli {

RunTables render_run_tables(const std::vector<Record>& records, const SweetSpotOptions& keep = {});

}  // namespace moesweep::cli
