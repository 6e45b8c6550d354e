// Every table a run prints to a terminal fits 120 columns (issue 48): the
// sweep-bench and threads tables (two co-tenant kinds, a failed point with a
// long engine error, a long model name), the engines side by side, memory and
// counts, the legend one line per mark, the sweet spot on short lines; while
// tables.md keeps every column. Plain records, no engine; the doc test
// (tests/docs/) checks the same on the demo's real run and its compare.
#include <gtest/gtest.h>

#include "report/run_tables.hpp"
#include "results/sample_sets.hpp"
#include "util/terminal_text.hpp"

namespace moesweep {
namespace {

// The widest line, with the line itself, for the failure message.
std::string widest_of(const std::string& text) {
  std::string widest;
  for (size_t at = 0; at < text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    const std::string line = text.substr(at, end - at);
    if (display_width(line) > display_width(widest)) widest = line;
    at = end + 1;
  }
  return widest;
}

// Two engines x threads 1..4 x two co-tenant kinds, the tiny twin's largest
// speeds with a wide spread, noise flags, memory figures and simulated
// counts: every column a terminal table can get.
std::vector<Record> busy_run() {
  std::vector<Record> out;
  int index = 0;
  for (const char* engine : {"main", "pr-with-a-long-name"})
    for (int t = 1; t <= 4; ++t)
      for (const char* kind : {"", "stream", "compute"}) {
        Record r = test::make_record("run", index++, t, 131072, {1234.56 * t, 1100.0 * t},
                                     {987.65, 800.0});
        r.params.model_name = "kimi-k2.5-small-Q4_K_S-s42-fedda15be5ef";
        r.params.engine = engine;
        r.params.cotenant = kind;
        r.params.n_threads_batch = 2 * t;
        if (*kind) r.cotenant = {{"kind", kind}, {"throughput", 123.25}, {"unit", "GB/s"}};
        r.noise = {{"steal_fraction", 0.031}, {"others_fraction", 0.31}};
        r.memory.kv = 4718592;
        r.memory.kv_expected = 4718592;
        r.memory.peak_rss = 1u << 30;
        r.memory.unavailable["model_mapped_bytes"] =
            "the engine's process could not be read (a reason long enough to need two lines on "
            "a terminal: /proc/PID/smaps was not readable to this user, as on a locked-down host)";
        r.tg.counters["simulated"] = {{"cache", "LL=32MiB,16 D1=32KiB,8"}};
        r.tg.counters["instructions_per_token"] = 12143087.0;
        r.tg.counters["ll_misses_per_token"] = 31771.0;
        out.push_back(r);
      }
  Record failed = out.front();
  failed.ok = false;
  failed.params.n_kv = 0;
  failed.error =
      "the engine worker died during context: SIGABRT (abort: an engine assert or GGML_ABORT); "
      "its log's last lines: ggml-backend.cpp:1294: GGML_ASSERT(*cur_backend_id != -1) failed";
  out.push_back(failed);
  return out;
}

TEST(TerminalWidth, ARunsTablesFitATerminalAndTablesMdKeepsEveryColumn) {
  const RunTables t = render_run_tables(busy_run());
  EXPECT_LE(widest_line(t.terminal), kTerminalWidth) << widest_of(t.terminal);
  for (const char* section : {"## sweep-bench", "## threads", "## engines side by side",
                              "## memory", "## counts per token", "sweet spot: th="})
    EXPECT_NE(t.terminal.find(section), std::string::npos) << section << "\n" << t.terminal;
  // The file keeps what the terminal leaves out.
  for (const char* column :
       {" ± S_PP |", " steal |", " TG roofline t/s |", " threads_batch |", " stream itself |",
        " MemAvailable before load MiB |", " data reads |"})
    EXPECT_NE(t.markdown.find(column), std::string::npos) << column;
  EXPECT_EQ(t.terminal.find(" ± S_PP |"), std::string::npos);
  // A legend line per mark, each within the width.
  for (const char* mark : {"`!`: ", "`*`: ", "`+`: ", "`max`: "})
    EXPECT_NE(t.terminal.find(std::string("\n") + mark), std::string::npos) << mark;
}

}  // namespace
}  // namespace moesweep
