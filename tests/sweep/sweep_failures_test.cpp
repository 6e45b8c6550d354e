// Failure and bad input through the CLI: a point the engine cannot run is
// recorded failed with its reason while the sweep goes on (exit 3); input that
// cannot run at all is refused with "error:" and "fix:" and exit 2, and no
// run directory is passed off as complete.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <random>

#include "support/run_records.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

using test::CommandResult;

// Small enough to cost a second or two per run on the tiny twin.
const std::string kCommon = "-t 1 -c 512 -ub 64 -n 2 -r 1 --counters none --no-db --quiet";
const std::string kSmall = "sweep -m kimi-k2.5 -q Q4_K_S --scale tiny --depths 0,64 " + kCommon;

std::string file_sweep(const std::filesystem::path& model) {
  return "sweep -m '" + model.string() + "' --depths 0,64 " + kCommon;
}

using test::read_meta;

TEST(SweepFailedPoints, QuantizedVWithoutFlashAttentionIsRecordedFailedAndTheSweepGoesOn) {
  const std::filesystem::path out = test::scratch_dir() / "runs";
  const CommandResult r =
      test::run_cli(kSmall + " -fa on,off -ctk q8_0 -ctv q8_0 --out-dir '" + out.string() + "'");
  EXPECT_EQ(r.exit_code, 3) << r.err;  // finished, some points failed
  const std::filesystem::path run = test::only_run_dir(out);
  int ok = 0, failed = 0;
  for (const std::string& line : test::read_lines(run / "records.jsonl")) {
    const nlohmann::json rec = nlohmann::json::parse(line);
    SCOPED_TRACE(line);
    if (rec["flash_attn"] == 1) {
      EXPECT_EQ(rec["ok"], true);
      EXPECT_GT(rec["speed_tg"].get<double>(), 0.0);
      ++ok;
    } else {
      EXPECT_EQ(rec["ok"], false);
      const std::string error = rec.value("error", "");
      EXPECT_NE(error.find("-ctv q8_0 needs flash attention"), std::string::npos) << error;
      ++failed;
    }
  }
  EXPECT_EQ(ok, 2);
  EXPECT_EQ(failed, 2);
  const nlohmann::json meta = read_meta(run);
  EXPECT_EQ(meta["status"], "points_failed");
  EXPECT_EQ(meta["outcome"]["failed_points"], 2);
  // The table names the failure instead of hiding the rows.
  EXPECT_NE(r.out.find("FAILED N_KV 0: -ctv q8_0 needs flash attention"), std::string::npos)
      << r.out;
}

// Exit 2, a three-part message naming `problem`, and no complete run left behind.
void expect_refused(const std::string& args, const std::string& problem) {
  const std::filesystem::path out = test::scratch_dir() / "runs";
  const CommandResult r = test::run_cli(args + " --out-dir '" + out.string() + "'");
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
  EXPECT_NE(r.err.find("error: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(problem), std::string::npos) << "wanted '" << problem << "' in:\n" << r.err;
  EXPECT_NE(r.err.find("fix: "), std::string::npos) << r.err;
  if (std::filesystem::exists(out))
    for (const auto& e : std::filesystem::directory_iterator(out)) {
      if (!std::filesystem::exists(e.path() / "meta.json")) continue;
      EXPECT_NE(read_meta(e.path()).value("status", ""), "complete") << e.path();
      EXPECT_TRUE(test::read_lines(e.path() / "records.jsonl").empty()) << e.path();
    }
}

TEST(SweepBadInput, MalformedProfileJson) {
  const std::filesystem::path file = test::scratch_dir() / "broken-profile.json";
  std::ofstream(file) << "{\"threads\": \"1,2\",\n \"depths\": [0, 256\n";
  expect_refused(kSmall + " --profile '" + file.string() + "'", "is not valid JSON");
}

TEST(SweepBadInput, ProfileWithAnUnknownKey) {
  const std::filesystem::path file = test::scratch_dir() / "typo-profile.json";
  std::ofstream(file) << R"({"thread": "1,2"})";
  expect_refused(kSmall + " --profile '" + file.string() + "'", "unknown setting 'thread'");
}

TEST(SweepBadInput, UnknownFlashAttentionValue) {
  expect_refused(kSmall + " -fa maybe", "'maybe' is not on, off or auto");
  expect_refused(kSmall + " -fa maybe", "fix: write --flash-attn auto, --flash-attn on or");
}

TEST(SweepBadInput, UnknownCacheType) {
  expect_refused(kSmall + " -ctk q9_9", "unknown KV cache type 'q9_9'");
}

TEST(SweepBadInput, UnknownTwinQuantType) {
  expect_refused("sweep -m kimi-k2.5 -q Q9_9 --depths 0 " + kCommon, "unknown quant type 'Q9_9'");
}

TEST(SweepBadInput, MissingModelFile) {
  expect_refused(file_sweep("/nonexistent.gguf"), "model file '/nonexistent.gguf' does not exist");
}

TEST(SweepBadInput, RandomBytesNamedGguf) {
  const std::filesystem::path file = test::scratch_dir() / "x.gguf";
  {
    std::ofstream f(file, std::ios::binary);
    std::mt19937 rng(7);
    for (int i = 0; i < 65536; ++i) f.put(static_cast<char>(rng()));
  }
  expect_refused(file_sweep(file), "is not a GGUF file");
}

TEST(SweepBadInput, TruncatedCopyOfTheTwin) {
  const std::filesystem::path twin = test::tiny_twin();
  const std::filesystem::path cut = test::scratch_dir() / "truncated.gguf";
  {
    std::ifstream in(twin, std::ios::binary);
    std::ofstream f(cut, std::ios::binary);
    std::vector<char> buf(std::filesystem::file_size(twin) / 2);
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    f.write(buf.data(), in.gcount());
  }
  expect_refused(file_sweep(cut), "is truncated");  // found before the engine sees it
}

TEST(SweepBadInput, DepthAboveContext) {
  expect_refused("sweep -m kimi-k2.5 --depths 0,1000 " + kCommon,
                 "depth 1000 + PP 64 + TG 2 = 1066 tokens do not fit in ctx 512");
}

TEST(SweepBadInput, ThreadsAboveTheMachinesCpus) {
  if (std::stoi(test::run_shell("nproc").out) >= 512) GTEST_SKIP() << "512 or more CPUs";
  expect_refused("sweep -m kimi-k2.5 -t 512 --depths 0 -c 512 -ub 64 -n 2 --no-db --quiet",
                 "512 threads requested but this machine has");
}

TEST(SweepBadInput, ResumeOfSomethingThatIsNotARun) {
  expect_refused("sweep --resume '" + test::scratch_dir().string() + "'", "is not a moesweep run");
}

}  // namespace
}  // namespace moesweep
