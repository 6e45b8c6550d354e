// Ctrl-C and --resume on a real sweep: SIGINT stops after the current sample
// with exit 130, meta.json says "interrupted" and every line already on disk
// is whole; --resume measures exactly the points still missing, and refuses a
// run that is already complete.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "support/run_records.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

using Clock = std::chrono::steady_clock;
using test::spawn_cli;
using test::wait_exit_code;

// Four points of ~40 repetitions each: seconds per point on the tiny twin, so
// there is time to interrupt after the first one and work left to resume.
constexpr int kPlanned = 4;
const std::string kArgs =
    "sweep -m kimi-k2.5 -q Q4_K_S --scale tiny -t 1 --depths 0,64,128,192 -c 512 -ub 64 -n 2 "
    "-r 40 --counters none --no-db --quiet";

std::filesystem::path find_records(const std::filesystem::path& out_dir) {
  std::error_code ec;
  if (std::filesystem::is_directory(out_dir, ec))
    for (const auto& e : std::filesystem::directory_iterator(out_dir, ec))
      if (std::filesystem::exists(e.path() / "records.jsonl")) return e.path() / "records.jsonl";
  return {};
}

std::vector<nlohmann::json> parse_lines(const std::filesystem::path& file) {
  std::vector<nlohmann::json> out;
  for (const std::string& line : test::read_lines(file)) {
    EXPECT_TRUE(nlohmann::json::accept(line)) << "half-written line: " << line;
    if (nlohmann::json::accept(line)) out.push_back(nlohmann::json::parse(line));
  }
  return out;
}

// Markdown table rows whose first cell is `first`.
int count_rows_starting_with(const std::string& text, const std::string& first) {
  int n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] != '|') continue;
    const size_t end = line.find('|', 1);
    std::string cell = line.substr(1, end == std::string::npos ? std::string::npos : end - 1);
    cell.erase(0, cell.find_first_not_of(' '));
    cell.erase(cell.find_last_not_of(' ') + 1);
    n += cell == first;
  }
  return n;
}

using test::read_meta;

// Starts the sweep, sends SIGINT once the first record is on disk; returns
// the run directory (empty if the sweep never got that far).
std::filesystem::path interrupted_run(int* exit_code) {
  const std::filesystem::path dir = test::scratch_dir();
  const std::filesystem::path out = dir / "runs";
  const pid_t pid =
      spawn_cli(kArgs + " --out-dir '" + out.string() + "'", dir / "stdout", dir / "stderr");
  EXPECT_GT(pid, 0);
  const auto deadline = Clock::now() + std::chrono::seconds(180);
  std::filesystem::path records;
  while (Clock::now() < deadline) {
    records = find_records(out);
    if (!records.empty() && !test::read_lines(records).empty()) break;
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      ADD_FAILURE() << "the sweep ended before its first record";
      *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      return {};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid, SIGINT);
  *exit_code = wait_exit_code(pid, std::chrono::seconds(60));
  return records.empty() ? records : records.parent_path();
}

TEST(SweepInterrupt, SigintStopsCleanlyThenResumeCompletesTheRest) {
  int code = -1;
  const std::filesystem::path run = interrupted_run(&code);
  ASSERT_FALSE(run.empty());
  std::ifstream err_file(test::scratch_dir() / "stderr");
  const std::string err{std::istreambuf_iterator<char>(err_file), {}};
  EXPECT_EQ(code, 130) << err;
  EXPECT_NE(err.find("--resume " + run.string()), std::string::npos) << err;

  const nlohmann::json meta = read_meta(run);
  EXPECT_EQ(meta["status"], "interrupted");
  const auto before = parse_lines(run / "records.jsonl");
  ASSERT_GE(before.size(), 1u);
  EXPECT_LT(before.size(), static_cast<size_t>(kPlanned)) << "nothing left to resume";
  for (const auto& r : before) EXPECT_EQ(r["ok"], true) << r.dump();  // no partial point
  EXPECT_EQ(meta["outcome"]["ok_points"], before.size());
  parse_lines(run / "samples.jsonl");  // every sample line whole

  const test::CommandResult resumed =
      test::run_cli("sweep --resume '" + run.string() + "' --no-db --quiet");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const nlohmann::json done = read_meta(run);
  EXPECT_EQ(done["status"], "complete");
  EXPECT_EQ(done["outcome"]["skipped_points"], before.size());
  std::map<int, int> seen;  // point index -> ok records
  std::set<int> depths;
  for (const auto& r : parse_lines(run / "records.jsonl")) {
    if (r["ok"] != true) continue;
    seen[r["point"].get<int>()]++;
    depths.insert(r["n_kv"].get<int>());
  }
  ASSERT_EQ(seen.size(), static_cast<size_t>(kPlanned));
  for (const auto& [point, count] : seen) EXPECT_EQ(count, 1) << "point " << point;
  EXPECT_EQ(depths, (std::set<int>{0, 64, 128, 192}));
  // The resumed run's sweep-bench table covers the points of both sessions:
  // one row per depth, each starting with PP = 64.
  EXPECT_EQ(count_rows_starting_with(resumed.out, "64"), kPlanned) << resumed.out;

  const test::CommandResult again =
      test::run_cli("sweep --resume '" + run.string() + "' --no-db --quiet");
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("already completed"), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("fix: "), std::string::npos) << again.err;
}

}  // namespace
}  // namespace moesweep
