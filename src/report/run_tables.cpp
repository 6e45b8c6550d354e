#include "report/run_tables.hpp"

#include "report/count_table.hpp"
#include "report/engine_table.hpp"
#include "report/memory_table.hpp"
#include "report/sweep_tables.hpp"
#include "util/json_file.hpp"

namespace moesweep {

namespace {

// The run's tables in one width: tables.md's (kWide) or a terminal's.
std::string tables_text(const std::vector<Record>& records, const SweetSpotOptions& keep,
                        TableWidth width) {
  std::string out = "## sweep-bench\n\n" + sweep_bench_tables(records, width) + "\n## threads\n\n" +
                    threads_tables(records, keep, width);
  if (const std::string engines = engines_side_by_side(records, width); !engines.empty())
    out += "\n## engines side by side\n\n" + engines;
  if (const std::string memory = memory_tables(records, width); !memory.empty())
    out += "\n## memory\n\n" + memory;
  if (const std::string counts = count_tables(records, width); !counts.empty())
    out += "\n" + counts;
  return out;
}

}  // namespace

RunTables render_run_tables(const std::vector<Record>& records, const SweetSpotOptions& keep) {
  RunTables t;
  t.markdown = tables_text(records, keep, TableWidth::kWide);
  t.terminal = tables_text(records, keep, TableWidth::kCompact);
  for (const SweepBenchFile& f : sweep_bench_files(records)) t.files.emplace_back(f.file, f.text);
  t.noise = noise_summary(records);
  return t;
}

RunTablesWriter::RunTablesWriter(std::filesystem::path run_dir, std::string title,
                                 SweetSpotOptions keep)
    : dir_(std::move(run_dir)), title_(std::move(title)), keep_(keep) {}

void RunTablesWriter::resumed(const std::vector<Record>& earlier) {
  records_.insert(records_.begin(), earlier.begin(), earlier.end());
}

void RunTablesWriter::point(const Record& record) {
  records_.push_back(record);
}

nlohmann::json RunTablesWriter::noise() const {
  return noise_summary(records_);
}

void RunTablesWriter::end(const RunMeta&, RunStatus status) {
  if (status == RunStatus::kFailed || status == RunStatus::kRunning) return;
  RunTables tables = render_run_tables(records_, keep_);
  tables.markdown += paragraphs_;
  write_file_atomically(dir_ / "tables.md", "# " + title_ + "\n\n" + tables.markdown);
  const std::filesystem::path bench = dir_ / "sweep-bench";
  std::filesystem::remove_all(bench);  // a resumed run rewrites them all
  if (!tables.files.empty()) std::filesystem::create_directories(bench);
  for (const auto& [name, text] : tables.files) write_file_atomically(bench / name, text);
  markdown_ = tables.markdown;
  terminal_ = tables.terminal + paragraphs_;
}

}  // namespace moesweep
