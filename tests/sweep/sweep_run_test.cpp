// A real sweep through the CLI on the tiny twin (made once, shared by the
// tests below): the run directory, the records with sweep-bench's keys, the
// samples, the CSV and the tables people compare with published ones.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <sstream>

#include "support/run_records.hpp"
#include "support/sweep_bench_format.hpp"
#include "support/test_support.hpp"
#include "util/hash.hpp"
#include "util/terminal_text.hpp"

namespace moesweep {
namespace {

constexpr int kDepths[] = {0, 256, 512};
constexpr int kThreads[] = {1, 2};
constexpr size_t kPoints = 6;

const test::SharedRun& main_run() {
  static const test::SharedRun run = test::shared_cli_run(
      "sweep-main",
      "sweep -m kimi-k2.5 -q Q4_K_S --scale tiny -t 1,2 --depths 0,256,512 -c 1024 -ub 256 -n 4 "
      "-r 2 --counters none --no-db --quiet");
  return run;
}

std::filesystem::path run_dir() {
  return test::only_run_dir(main_run().out_dir);
}

using test::read_json;

std::vector<nlohmann::json> records() {
  std::vector<nlohmann::json> out;
  for (const std::string& line : test::read_lines(run_dir() / "records.jsonl"))
    out.push_back(nlohmann::json::parse(line));
  return out;
}

std::string trim(std::string s) {
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// The cells of every Markdown table row in `text` whose first cell is `first`.
std::vector<std::vector<std::string>> rows_starting_with(const std::string& text,
                                                         const std::string& first) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.size() < 2 || line.front() != '|') continue;
    std::vector<std::string> cells;
    std::istringstream cells_in(line.substr(1));
    for (std::string cell; std::getline(cells_in, cell, '|');) cells.push_back(trim(cell));
    if (!cells.empty() && cells[0] == first) rows.push_back(cells);
  }
  return rows;
}

TEST(SweepRun, ExitsZeroWithACompleteRunDirectory) {
  const test::SharedRun& run = main_run();
  ASSERT_EQ(run.cli.exit_code, 0) << run.cli.err;
  const std::filesystem::path dir = run_dir();
  for (const char* file :
       {"meta.json", "records.jsonl", "samples.jsonl", "records.csv", "tables.md"})
    EXPECT_TRUE(std::filesystem::exists(dir / file)) << file;
  const nlohmann::json meta = read_json(dir / "meta.json");
  EXPECT_EQ(meta["status"], "complete");
  EXPECT_EQ(meta["outcome"]["planned_points"], kPoints);
  EXPECT_EQ(meta["outcome"]["ok_points"], kPoints);
  EXPECT_EQ(meta["outcome"]["failed_points"], 0);
  EXPECT_EQ(meta["run_id"], dir.filename().string());
}

TEST(SweepRun, MetaRecordsEngineCpuModelAndEveryParameter) {
  const nlohmann::json meta = read_json(run_dir() / "meta.json");
  EXPECT_EQ(meta["build"]["engine"]["release"], "v0.4.0");
  EXPECT_EQ(meta["build"]["engine"]["commit"].get<std::string>().size(), 40u);
  EXPECT_FALSE(meta["build"]["cpu_features"].empty());
  EXPECT_GT(meta["build"]["cpu"]["logical_cpus"].get<int>(), 0);
  EXPECT_EQ(meta["settings"]["threads"], "1,2");
  EXPECT_EQ(meta["spec"]["depths"], nlohmann::json::array({0, 256, 512}));
  EXPECT_EQ(meta["spec"]["repetitions"], 2);
  ASSERT_EQ(meta["models"].size(), 1u);
  const nlohmann::json& model = meta["models"][0];
  EXPECT_EQ(model["arch"], "deepseek2");
  const std::filesystem::path twin = test::tiny_twin();
  EXPECT_EQ(model["path"], twin.string());
  EXPECT_EQ(model["sha256"], sha256_file(twin));
  EXPECT_GT(model["n_params"].get<uint64_t>(), 0u);
}

TEST(SweepRun, OneOkRecordPerDepthAndThreadInPlanOrder) {
  const auto recs = records();
  ASSERT_EQ(recs.size(), kPoints);
  std::set<std::pair<int, int>> cells;
  for (size_t i = 0; i < recs.size(); ++i) {
    const nlohmann::json& r = recs[i];
    SCOPED_TRACE(r.dump());
    EXPECT_EQ(r["ok"], true);
    EXPECT_EQ(r["point"], i);
    EXPECT_EQ(r["n_kv"], kDepths[i / 2]);  // N_KV follows the schedule, depth-major
    const int thread = (i / 2) % 2 == 0 ? kThreads[i % 2] : kThreads[1 - i % 2];  // a snake
    EXPECT_EQ(r["n_threads"], thread);
    EXPECT_EQ(r["n_threads_batch"], thread);
    cells.insert({r["n_kv"].get<int>(), r["n_threads"].get<int>()});
  }
  EXPECT_EQ(cells.size(), kPoints);
}

TEST(SweepRun, RecordsCarrySweepBenchKeysWithTheSweepsValues) {
  for (const nlohmann::json& r : records()) {
    SCOPED_TRACE(r.dump());
    for (const char* key :
         {"n_kv_max", "n_batch", "n_ubatch", "flash_attn", "n_gpu_layers", "n_threads",
          "n_threads_batch", "pp", "tg", "n_kv", "t_pp", "speed_pp", "t_tg", "speed_tg"})
      EXPECT_TRUE(r.contains(key)) << key;
    EXPECT_EQ(r["n_kv_max"], 1024);
    EXPECT_EQ(r["n_ubatch"], 256);
    EXPECT_EQ(r["pp"], 256);  // one ubatch, as sweep-bench times it
    EXPECT_EQ(r["tg"], 4);
    EXPECT_EQ(r["flash_attn"], -1);    // llama-bench's default: auto
    EXPECT_EQ(r["n_gpu_layers"], -1);  // llama-bench's default (all; CPU build: on CPU)
    EXPECT_EQ(r["load_mode"], "auto");
    EXPECT_GT(r["t_pp"].get<double>(), 0.0);
    EXPECT_GT(r["speed_pp"].get<double>(), 0.0);
    EXPECT_GT(r["t_tg"].get<double>(), 0.0);
    EXPECT_GT(r["speed_tg"].get<double>(), 0.0);
    // every sample kept, and the summary made from them
    EXPECT_EQ(r["pp_phase"]["samples_s"].size(), 2u);
    EXPECT_EQ(r["tg_phase"]["samples_ts"].size(), 2u);
    EXPECT_EQ(r["tg_phase"]["speed"]["n"], 2);
    EXPECT_TRUE(r["tg_phase"]["speed"].contains("cv"));
  }
}

TEST(SweepRun, SamplesLogHoldsEveryRepetitionOfEveryPhase) {
  const auto lines = test::read_lines(run_dir() / "samples.jsonl");
  ASSERT_EQ(lines.size(), kPoints * 2 /*reps*/ * 2 /*phases*/);
  std::map<std::string, int> per_phase;
  for (const std::string& line : lines) {
    const nlohmann::json s = nlohmann::json::parse(line);
    per_phase[s["phase"]]++;
    EXPECT_GT(s["seconds"].get<double>(), 0.0);
    EXPECT_EQ(s["tokens"], s["phase"] == "pp" ? 256 : 4);
    EXPECT_LT(s["point"].get<int>(), static_cast<int>(kPoints));
  }
  EXPECT_EQ(per_phase["pp"], 12);
  EXPECT_EQ(per_phase["tg"], 12);
}

TEST(SweepRun, CsvHasAHeaderAndOneRowPerPoint) {
  const auto lines = test::read_lines(run_dir() / "records.csv");
  ASSERT_EQ(lines.size(), kPoints + 1);
  for (const char* column : {"n_kv", "n_threads", "speed_pp", "speed_tg"})
    EXPECT_NE(lines[0].find(column), std::string::npos) << column;
}

TEST(SweepRun, StdoutHasTheExactSweepBenchColumnsPerThreadConfig) {
  const std::string& out = main_run().cli.out;
  const auto headers = rows_starting_with(out, "PP");
  ASSERT_EQ(headers.size(), 2u) << out;  // one table per thread configuration
  const std::vector<std::string> sweep_bench = {"PP",       "TG",     "N_KV",    "T_PP s",
                                                "S_PP t/s", "T_TG s", "S_TG t/s"};
  for (const auto& h : headers) {
    ASSERT_GE(h.size(), sweep_bench.size());
    EXPECT_EQ(std::vector<std::string>(h.begin(), h.begin() + 7), sweep_bench);
  }
  // Data rows: PP 256, TG 4, N_KV in schedule order.
  const auto rows = rows_starting_with(out, "256");
  ASSERT_EQ(rows.size(), kPoints);
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i][1], "4");
    EXPECT_EQ(rows[i][2], std::to_string(kDepths[i % 3]));
  }
}

TEST(SweepRun, StdoutHasAThreadsTableForEachDepth) {
  const std::string& out = main_run().cli.out;
  for (int depth : kDepths)
    EXPECT_NE(out.find("### threads at N_KV " + std::to_string(depth) + " "), std::string::npos)
        << depth;
  // The seeds' `threads | PP t/s | TG t/s` (a terminal's table; tables.md adds
  // threads_batch after threads).
  const auto headers = rows_starting_with(out, "threads");
  ASSERT_EQ(headers.size(), 3u) << out;
  EXPECT_EQ(headers[0][1], "PP t/s");
  EXPECT_EQ(headers[0][2], "TG t/s");
  // one row per thread count, mean ± sd
  const auto one = rows_starting_with(out, "1");
  const auto two = rows_starting_with(out, "2");
  EXPECT_EQ(one.size(), 3u);
  EXPECT_EQ(two.size(), 3u);
  for (const auto& row : one) EXPECT_NE(row.at(1).find(" ± "), std::string::npos) << row.at(1);
}

// One plain sweep-bench table per configuration (here the two thread
// settings), which ik_llama.cpp's sweep-bench-plot.py reads (issue 9).
TEST(SweepRun, SweepBenchFilePerConfigurationHasExactlyTheColumnsAndNumericCells) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(run_dir() / "sweep-bench"))
    files.push_back(e.path());
  ASSERT_EQ(files.size(), std::size(kThreads));
  for (const auto& file : files) {
    std::ifstream in(file);
    std::stringstream ss;
    ss << in.rdbuf();
    SCOPED_TRACE(file.string() + "\n" + ss.str());
    EXPECT_EQ(file.extension(), ".md");
    int rows = 0;
    EXPECT_EQ(test::sweep_bench_format_problem(ss.str(), &rows), "");
    EXPECT_EQ(rows, static_cast<int>(std::size(kDepths)));
  }
}

TEST(SweepRun, EveryPointCarriesItsNoiseAndMetaJsonListsTheFlaggedOnes) {
  std::set<int> flagged;
  for (const nlohmann::json& r : records()) {
    SCOPED_TRACE(r.dump());
    const nlohmann::json& noise = r["noise"];
    ASSERT_TRUE(noise["steal_fraction"].is_number());  // Linux always has /proc/stat
    EXPECT_GE(noise["steal_fraction"].get<double>(), 0.0);
    EXPECT_GT(noise["wall_s"].get<double>(), 0.0);
    EXPECT_GT(noise["cpus"].get<int>(), 0);
    EXPECT_TRUE(noise["load_1m"].is_number());
    // A VM often has no cpufreq: then a reason, never a made-up number.
    EXPECT_TRUE(noise["freq_mhz"].is_number() || noise["freq_mhz"].contains("unavailable"));
    if (noise["steal_flagged"].get<bool>()) flagged.insert(r["point"].get<int>());
    EXPECT_EQ(r["repetitions"]["done"], 2);
    EXPECT_TRUE(r["repetitions"]["target_ci_pct"].is_null());
  }
  const nlohmann::json meta = read_json(run_dir() / "meta.json");
  const nlohmann::json& noise = meta["noise"];
  EXPECT_EQ(noise["steal_threshold"], 0.02);
  EXPECT_EQ(noise["points_with_steal"], kPoints);
  EXPECT_EQ(noise["flagged_count"], flagged.size());
  std::set<int> listed;
  for (const auto& p : noise["flagged_points"]) listed.insert(p["point"].get<int>());
  EXPECT_EQ(listed, flagged);
}

TEST(SweepRun, TablesShowEachPointsStealAndSayWhatTheMarkerMeans) {
  // tables.md has the steal column; stdout, a terminal's, its mark in `flags`.
  const std::string file = test::slurp(run_dir() / "tables.md");
  for (const auto& h : rows_starting_with(file, "PP")) EXPECT_EQ(h.back(), "steal");
  for (const auto& row : rows_starting_with(file, "256"))
    EXPECT_NE(row.back().find('%'), std::string::npos) << row.back();
  const std::string& out = main_run().cli.out;
  for (const auto& h : rows_starting_with(out, "PP")) EXPECT_EQ(h.back(), "flags");
  EXPECT_NE(out.find("`*`: CPU steal above 2%"), std::string::npos) << out;
}

TEST(SweepRun, TargetCiRepeatsUntilMaxRepetitionsAndTheTableSaysItWasNotMet) {
  // A target no timing meets: every point takes --max-repetitions.
  const test::CommandResult r = test::run_cli(
      "sweep -m kimi-k2.5 -q Q4_K_S --scale tiny -t 1 --depths 0,128 -c 512 -ub 128 -n 2 -r 1 "
      "--target-ci 1e-9 --max-repetitions 3 --counters none --no-db --quiet --out-dir " +
      (test::scratch_dir() / "runs").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = rows_starting_with(r.out, "128");
  ASSERT_EQ(rows.size(), 2u) << r.out;
  for (const auto& row : rows) EXPECT_EQ(row.at(9), "3 max") << r.out;  // n, a terminal's column
  EXPECT_NE(r.out.find("`max`: --target-ci / --target-mde not reached"), std::string::npos);
}

// stdout is a terminal's form of tables.md (issue 48): the same points and
// figures, fewer columns, and where every column is.
TEST(SweepRun, TablesFileHoldsWhatStdoutPrinted) {
  const std::string file = test::slurp(run_dir() / "tables.md");
  const std::string& out = main_run().cli.out;
  ASSERT_FALSE(out.empty());
  const auto printed = rows_starting_with(out, "256"), kept = rows_starting_with(file, "256");
  ASSERT_EQ(printed.size(), kept.size()) << out;
  for (size_t i = 0; i < printed.size(); ++i)  // sweep-bench's seven columns, the same
    EXPECT_EQ(std::vector<std::string>(printed[i].begin(), printed[i].begin() + 7),
              std::vector<std::string>(kept[i].begin(), kept[i].begin() + 7));
  EXPECT_NE(out.find("Every column: tables.md in the run directory (or sweep --wide)"),
            std::string::npos)
      << out;
  EXPECT_LE(widest_line(out), kTerminalWidth) << out;
}

}  // namespace
}  // namespace moesweep
