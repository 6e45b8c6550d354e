#pragma once
// A run's tables: tables.md, sweep-bench/ and the noise summary meta.json
// keeps, rendered from its records. A sweep, `l3-run` and `merge` write the
// same, through RunTablesWriter, a listener of the run's lifecycle.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "report/sweet_spot.hpp"
#include "results/record.hpp"
#include "results/sink.hpp"

namespace moesweep {

struct RunTables {
  std::string markdown;  // tables.md after its title: every column
  std::string terminal;  // the same tables as a terminal gets them: 120 columns
  std::vector<std::pair<std::string, std::string>> files;  // sweep-bench/<name> -> text
  nlohmann::json noise = nlohmann::json::object();         // meta.json's "noise"
};

RunTables render_run_tables(const std::vector<Record>& records, const SweetSpotOptions& keep = {});

// tables.md (titled) and sweep-bench/ of a run directory from every point the
// run tells (a resumed run's earlier ones first), written when it ends
// complete, points_failed or interrupted and replacing what an earlier write
// left; a failed run writes none. It reads no file.
class RunTablesWriter : public RunListener {
 public:
  RunTablesWriter(std::filesystem::path run_dir, std::string title, SweetSpotOptions keep = {});
  void resumed(const std::vector<Record>& earlier) override;
  void point(const Record& record) override;
  void end(const RunMeta& meta, RunStatus status) override;

  // meta.json's "noise" of the points so far (the points the tables flag for
  // steal): the run puts it in its meta before it ends.
  nlohmann::json noise() const;
  // Every point so far (a resumed run's earlier ones first).
  const std::vector<Record>& records() const { return records_; }
  // A paragraph under the tables (e.g. what the sample length cost), written
  // when the run ends.
  void add_paragraph(const std::string& text) { paragraphs_ += "\n" + text + "\n"; }
  // tables.md's text after its title, once the run has ended ("" before).
  const std::string& markdown() const { return markdown_; }
  // The same tables for a terminal (TableWidth::kCompact), once the run has ended.
  const std::string& terminal() const { return terminal_; }

 private:
  std::filesystem::path dir_;
  std::string title_;
  SweetSpotOptions keep_;
  std::vector<Record> records_;
  std::string paragraphs_;
  std::string markdown_;
  std::string terminal_;
};

}  // namespace moesweep
