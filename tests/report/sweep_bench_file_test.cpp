// The per-configuration sweep-bench files (RUN/sweep-bench/*.md): exactly
// sweep-bench's seven columns and numbers only, one table per file, so
// ik_llama.cpp's sweep-bench-plot.py reads them as it reads sweep-bench's own
// output (tables.md, with titles and "!" flags, is not for it).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <set>
#include <sstream>

#include "report/sweep_tables.hpp"
#include "results/sample_sets.hpp"
#include "support/sweep_bench_format.hpp"

namespace moesweep {
namespace {

std::vector<Record> two_configs_with_a_noisy_and_a_failed_point() {
  std::vector<Record> records;
  int index = 0;
  for (int threads : {1, 2})
    for (int n_kv : {0, 256, 512})
      records.push_back(test::make_record("unit", index++, threads, n_kv, {100, 140, 60},
                                          {10, 10.5, 9.5}));  // CV far above 5%: "!" in tables.md
  records[4].ok = false;
  records[4].error = "engine failed";
  return records;
}

TEST(SweepBenchFiles, OneFilePerConfigurationWithSweepBenchsColumnsAndNumbersOnly) {
  const auto records = two_configs_with_a_noisy_and_a_failed_point();
  ASSERT_NE(sweep_bench_tables(records).find(" !"), std::string::npos);  // the rich table flags
  const std::vector<SweepBenchFile> files = sweep_bench_files(records);
  ASSERT_EQ(files.size(), 2u);
  std::set<std::string> names;
  for (size_t i = 0; i < files.size(); ++i) {
    const SweepBenchFile& f = files[i];
    SCOPED_TRACE(f.file + "\n" + f.text);
    int rows = 0;
    EXPECT_EQ(test::sweep_bench_format_problem(f.text, &rows), "");
    EXPECT_EQ(f.text.find('#'), std::string::npos);  // no title
    EXPECT_EQ(f.text.find('!'), std::string::npos);
    EXPECT_EQ(f.text.rfind("| ", 0), 0u);                     // the table starts the file
    EXPECT_EQ(f.label, config_label(records[i * 3].params));  // in run order
    EXPECT_EQ(rows, i == 0 ? 3 : 2);                          // the failed point is left out
    EXPECT_EQ(f.file.find('/'), std::string::npos);
    EXPECT_EQ(f.file.substr(f.file.size() - 3), ".md");
    names.insert(f.file);
  }
  EXPECT_EQ(names.size(), 2u);
  // the numbers are sweep-bench's: PP, TG, N_KV, then mean T_PP / S_PP / T_TG / S_TG
  std::istringstream lines(files[0].text);
  std::string line;
  for (int i = 0; i < 3; ++i) std::getline(lines, line);  // header, separator, first row
  const auto row = test::pipe_cells(line);
  ASSERT_GE(row.size(), 8u);
  EXPECT_EQ(row[1], "256");
  EXPECT_EQ(row[2], "16");
  EXPECT_EQ(row[3], "0");
  EXPECT_EQ(row[5], fmt::format("{:.2f}", records[0].pp.speed.mean));
  EXPECT_EQ(row[7], fmt::format("{:.2f}", records[0].tg.speed.mean));
}

TEST(SweepBenchFiles, TheFormatCheckRefusesWhatThePlotScriptCannotRead) {
  const std::string good =
      "| PP | TG | N_KV | T_PP s | S_PP t/s | T_TG s | S_TG t/s |\n"
      "|---:|---:|---:|---:|---:|---:|---:|\n"
      "| 512 | 32 | 0 | 1.000 | 512.00 | 2.000 | 16.00 |\n";
  EXPECT_EQ(test::sweep_bench_format_problem(good), "");
  EXPECT_NE(test::sweep_bench_format_problem("# title\n\n" + good), "");
  std::string flagged = good;
  flagged.replace(flagged.find("512.00"), 6, "512.00 !");
  EXPECT_NE(test::sweep_bench_format_problem(flagged), "");
  EXPECT_NE(test::sweep_bench_format_problem(good + "\n" + good), "");  // two tables
}

TEST(SweepBenchFiles, NoOkPointMeansNoFile) {
  auto records = two_configs_with_a_noisy_and_a_failed_point();
  for (Record& r : records) r.ok = false;
  EXPECT_TRUE(sweep_bench_files(records).empty());
}

// A key field the title does not name (here poll) still separates
// configurations: its value is added to the title (from the field table).
TEST(SweepBenchFiles, ConfigurationsDifferingOnlyInAnUntitledFieldGetTheirOwnTables) {
  std::vector<Record> records;
  for (int poll : {50, 0})
    for (int n_kv : {0, 256}) {
      records.push_back(test::make_record("unit", static_cast<int>(records.size()), 1, n_kv,
                                          {100, 101}, {10, 10.1}));
      records.back().params.poll = poll;
    }
  const std::vector<SweepBenchFile> files = sweep_bench_files(records);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].label, config_label(records[0].params) + " | poll=50");
  EXPECT_EQ(files[1].label, config_label(records[2].params) + " | poll=0");
  const std::string tables = sweep_bench_tables(records);
  EXPECT_NE(tables.find(" | poll=50\n"), std::string::npos) << tables;
  EXPECT_NE(tables.find(" | poll=0\n"), std::string::npos) << tables;
}

}  // namespace
}  // namespace moesweep
