// The threads table of a run with a co-tenant axis: one row per thread
// count, a TG column and the co-tenant's own throughput per co-tenant kind,
// and the sweet spot computed alone and beside each kind; the memory table
// with the engine's KV figure against the formula; the "+" flag of a point
// other processes crowded. Plain records, no engine.
#include <gtest/gtest.h>

#include <algorithm>

#include "report/memory_table.hpp"
#include "report/sweep_tables.hpp"
#include "results/sample_sets.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

// Threads 1..4: alone decode saturates at 3 threads (the seeds' shape);
// beside a stream co-tenant every speed is lower and keeps rising to 4.
std::vector<Record> threads_with_cotenant() {
  const double alone[] = {5, 9, 10, 10.2}, beside[] = {4, 6, 7.5, 9};
  std::vector<Record> out;
  int index = 0;
  for (int t = 1; t <= 4; ++t)
    for (const char* kind : {"", "stream"}) {
      const double tg = (*kind ? beside : alone)[t - 1];
      Record r = test::make_record("run", index++, t, 0, {100.0 * t, 100.0 * t}, {tg, tg});
      r.params.cotenant = kind;
      if (*kind) r.cotenant = {{"kind", "stream"}, {"throughput", 3.25}, {"unit", "GB/s"}};
      r.noise = {{"steal_fraction", 0.0}, {"others_fraction", t == 2 ? 0.31 : 0.01}};
      out.push_back(r);
    }
  return out;
}

TEST(CotenantTables, OneRowPerThreadCountWithAColumnPerCotenantKind) {
  const std::string t = test::squeezed(threads_tables(threads_with_cotenant(), {0, 0.9, 4}));
  EXPECT_NE(t.find("| threads | threads_batch | PP t/s | TG t/s | TG t/s beside stream | stream "
                   "itself |"),
            std::string::npos)
      << t;
  EXPECT_EQ(t.find("### threads", t.find("### threads") + 1), std::string::npos)
      << "the co-tenant split the table: " << t;
  EXPECT_NE(t.find("| 4 | 4 | 400.00 ± 0.00 | 10.20 ± 0.00 | 9.00 ± 0.00 | 3.25 GB/s |"),
            std::string::npos)
      << t;
}

TEST(CotenantTables, TheSweetSpotIsComputedAloneAndBesideTheCotenant) {
  const std::string t = threads_tables(threads_with_cotenant(), {0, 0.9, 4});
  // Alone: th=3 keeps 98% of the best 10.2; beside stream only th=4 keeps 90% of 9.
  EXPECT_NE(t.find("alone: sweet spot: th=3"), std::string::npos) << t;
  EXPECT_NE(t.find("beside stream: sweet spot: th=4"), std::string::npos) << t;
}

TEST(CotenantTables, APointOtherProcessesCrowdedIsFlaggedWithItsLegend) {
  const auto records = threads_with_cotenant();
  const std::string t = threads_tables(records, {0, 0.9, 4});
  EXPECT_NE(t.find("31.0% +"), std::string::npos) << t;
  const std::string sb = sweep_bench_tables(records);
  EXPECT_NE(sb.find("31.0% +"), std::string::npos) << sb;
  EXPECT_NE(sb.find("`+`: other processes (not the engine, not a planned co-tenant)"),
            std::string::npos);
  const nlohmann::json noise = noise_summary(records);
  EXPECT_EQ(noise["other_processes"]["flagged_count"], 2);  // th=2 alone and beside
}

TEST(CotenantTables, TheProbesOwnVerdictWinsOverTheFraction) {
  // 20% of a 100 ms point is 2 ticks: under kOthersMinTicks, so the probe
  // did not flag it, and neither do the tables.
  std::vector<Record> records = threads_with_cotenant();
  for (Record& r : records)
    r.noise = {{"others_fraction", 0.2}, {"others_s", 0.02}, {"others_flagged", false}};
  EXPECT_EQ(test::squeezed(threads_tables(records, {0, 0.9, 4})).find("20.0% +"),
            std::string::npos);
  EXPECT_EQ(noise_summary(records)["other_processes"]["flagged_count"], 0);
  records[0].noise["others_flagged"] = true;
  EXPECT_EQ(noise_summary(records)["other_processes"]["flagged_count"], 1);
}

TEST(MemoryTable, OneRowPerContextWithThePeakOfItsPointsAndTheKvAgreement) {
  std::vector<Record> records = threads_with_cotenant();
  for (Record& r : records) {
    r.memory.kv = 4718592;                   // 4.50 MiB, as the engine logged it
    r.memory.kv_expected = 4718592 - 47186;  // the formula: 1% less
    r.memory.peak_rss = (100 + r.point_index) * 1048576ull;
    r.memory.unavailable["model_mapped_bytes"] = "not mapped";
  }
  const std::string t = test::squeezed(memory_tables(records));
  EXPECT_NE(t.find("| peak RSS MiB |"), std::string::npos) << t;
  EXPECT_NE(t.find("| 107.0 |"), std::string::npos) << "the peak of the context's points: " << t;
  EXPECT_NE(t.find("+1.0%"), std::string::npos) << t;
  MemoryFacts close;
  close.kv = 73400;  // 0.07 MiB as logged
  close.kv_expected = 69632;
  EXPECT_EQ(kv_agreement(close), "= (to the log's 0.01 MiB)");
  EXPECT_NE(t.find("- model_mapped_bytes n/a: not mapped"), std::string::npos) << t;
  // One cell per column: the context label's own " | " would shift every figure.
  const std::string header = t.substr(0, t.find('\n'));
  const size_t row_at = t.find('\n', t.find('\n') + 1) + 1;
  const std::string row = t.substr(row_at, t.find('\n', row_at) - row_at);
  EXPECT_EQ(std::count(row.begin(), row.end(), '|'), std::count(header.begin(), header.end(), '|'))
      << t;
  EXPECT_EQ(memory_tables(threads_with_cotenant()), "") << "no figures: no table";
}

}  // namespace
}  // namespace moesweep
