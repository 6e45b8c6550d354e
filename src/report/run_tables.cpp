#include "report/run_tables.hpp"

#include "report/count_table.hpp"
#include "report/engine_table.hpp"
#include "report/memory_table.hpp"
#include "report/sweep_tables.hpp"

namespace moesweep {

RunTables render_run_tables(const std::vector<Record>& records, const SweetSpotOptions& keep) {
  RunTables t;
  t.markdown = "## sweep-bench\n\n" + sweep_bench_tables(records) + "\n## threads\n\n" +
               threads_tables(records, keep);
  if (const std::string engines = engines_side_by_side(records); !engines.empty())
    t.markdown += "\n## engines side by side\n\n" + engines;
  if (const std::string memory = memory_tables(records); !memory.empty())
    t.markdown += "\n## memory\n\n" + memory;
  if (const std::string counts = count_tables(records); !counts.empty())
    t.markdown += "\n" + counts;
  for (const SweepBenchFile& f : sweep_bench_files(records)) t.files.emplace_back(f.file, f.text);
  t.noise = noise_summary(records);
  return t;
}

}  // namespace moesweep
