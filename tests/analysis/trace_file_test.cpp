// The trace file: what is written is read back; damaged files are refused
// with the three-part message (exit 2 through the CLI).
#include <gtest/gtest.h>

#include <fstream>

#include "analysis/hand_trace.hpp"
#include "analysis/routing_trace.hpp"
#include "results/record.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

TEST(TraceFile, RoundTripsThroughZstd) {
  RoutingTrace t = test::one_expert_per_token({3, 1, 2, 0});
  const int32_t ids[] = {0, 1, 2, 3, 3, 2};
  t.add(TracePhase::kPrefill, 1, 3, 2, ids);
  t.model.extra = {{"twin", {{"seed", 42}}}};
  const auto path = test::scratch_dir() / "routing.trace.zst";
  EXPECT_GT(write_routing_trace(t, path), 0u);
  const RoutingTrace back = read_routing_trace(path);
  EXPECT_EQ(back.ids, t.ids);
  ASSERT_EQ(back.steps.size(), t.steps.size());
  EXPECT_EQ(back.steps.back().n_tokens, 3u);
  EXPECT_EQ(back.steps.back().phase, TracePhase::kPrefill);
  EXPECT_EQ(back.model.expert_bytes, t.model.expert_bytes);
  EXPECT_EQ(back.model.hot_bytes, t.model.hot_bytes);
  EXPECT_EQ(back.model.extra["twin"]["seed"], 42);
}

TEST(TraceFile, TruncatedOrForeignFilesAreRefused) {
  const RoutingTrace t = test::one_expert_per_token({0, 1, 2});
  const std::string raw = serialize_routing_trace(t);
  EXPECT_THROW(parse_routing_trace(raw.substr(0, raw.size() - 1), "cut"), UserError);
  EXPECT_THROW(parse_routing_trace("GGUF....", "foreign"), UserError);
  std::string bad_id = raw;
  bad_id[bad_id.size() - 2] = 9;  // the last id names expert 9 of 4
  EXPECT_THROW(parse_routing_trace(bad_id, "bad id"), UserError);
  EXPECT_NO_THROW(parse_routing_trace(raw, "intact"));

  const auto dir = test::scratch_dir();
  std::ofstream(dir / "plain.txt") << "not zstd at all\n";
  EXPECT_THROW(read_routing_trace(dir / "plain.txt"), UserError);
  const test::CommandResult r = test::run_cli("l3 '" + (dir / "plain.txt").string() + "'");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("expected:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fix:"), std::string::npos) << r.err;
}

// `moesweep l3` on the hand-made trace with 4 MiB experts and a 3 MiB hot set
// read before each: H 0 H 1 H 2 H 0 H 1 H 2 H 3 H 0. The hot set's stack
// distance is 3 + 4 = 7 MiB (hits 7 of 8 reads from 8 MiB on); the experts'
// second reads 3 + 3 x 4 = 15 MiB, the last read of 0 3 + 4 x 4 = 19 MiB: 8 MiB
// hits no expert, 16 MiB 3 of 8, 32 MiB 4 of 8. No prefill: its column is empty.
TEST(TraceFile, L3CommandWritesTheCurveWorkedOutOnPaper) {
  const auto dir = test::scratch_dir();
  write_routing_trace(test::one_expert_per_token({0, 1, 2, 0, 1, 2, 3, 0}, 4),
                      dir / "routing.trace.zst");
  const test::CommandResult r =
      test::run_cli("l3 '" + dir.string() + "' --no-plot --hardware epyc-9175f");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("epyc-9175f"), std::string::npos) << r.out;
  const auto lines = test::read_lines(dir / "l3" / "l3_curve.csv");
  ASSERT_GE(lines.size(), 3u);
  ASSERT_GE(lines.size(), 4u);
  EXPECT_EQ(lines[0],
            "cache_bytes,cache_mib,hit_generation,hit_prefill,hit_all,hot_hit_generation");
  EXPECT_EQ(lines[1], "8388608,8,0.000000,,0.000000,0.875000");
  EXPECT_EQ(lines[2], "16777216,16,0.375000,,0.375000,0.875000");
  EXPECT_EQ(lines[3], "33554432,32,0.500000,,0.500000,0.875000");
  EXPECT_NE(r.out.find("n/a (0 micro-batch)"), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::exists(dir / "l3" / "l3.json"));
}

// A sweep's counters (a PMU machine's number, a VM's reason) beside the prediction.
TEST(TraceFile, L3CommandShowsMeasuredCountersBesideThePrediction) {
  const auto dir = test::scratch_dir();
  write_routing_trace(test::one_expert_per_token({0, 1, 2, 0}), dir / "routing.trace.zst");
  Record r;
  r.params.model_name = "twin-x";
  r.params.n_threads = 2;
  r.tg.counters = {{"l3_hit_rate", 0.42}, {"dram_bytes_per_token", {{"unavailable", "no PMU"}}}};
  std::filesystem::create_directories(dir / "run");
  std::ofstream(dir / "run" / "records.jsonl") << record_to_json(r).dump() << "\n";
  const test::CommandResult out =
      test::run_cli("l3 '" + dir.string() + "' --no-plot --run '" + (dir / "run").string() + "'");
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_NE(out.out.find("TG: l3_hit_rate 42%, dram_bytes_per_token unavailable (no PMU)"),
            std::string::npos)
      << out.out;
  const test::CommandResult none = test::run_cli("l3 '" + dir.string() + "' --no-plot --run '" +
                                                 (dir / "nothing").string() + "'");
  EXPECT_EQ(none.exit_code, 2) << none.out;
}

TEST(TraceFile, PredictPrintsBothRooflinesWithATrace) {
  const auto dir = test::scratch_dir();
  write_routing_trace(test::one_expert_per_token({0, 1, 2, 0, 1, 2, 3, 0}), dir / "t.zst");
  const test::CommandResult r = test::run_cli(
      "predict --hardware epyc-9175f --model kimi-k2.5 --trace '" + (dir / "t.zst").string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("decode roofline without L3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("decode roofline with L3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NOTE kimi-k2.5 has 384 experts"), std::string::npos) << r.out;
  const test::CommandResult no_model = test::run_cli(
      "predict --hardware epyc-9175f --active-params 3e10 --total-params 1e12 --trace '" +
      (dir / "t.zst").string() + "'");
  EXPECT_EQ(no_model.exit_code, 2) << no_model.out;
}

}  // namespace
}  // namespace moesweep
