// Latency statistics, SLOs and goodput, against a hand-made requests file
// (tests/data/serve/goodput_requests.jsonl: a warm-up line, then six measured
// requests of one rate, one of them failed) whose figures are worked out by
// hand below; and the --slo grammar.
#include <gtest/gtest.h>

#include <cmath>

#include "serve/rate_stats.hpp"
#include "serve/serve_run_files.hpp"
#include "serve/slo.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

// The measured requests of the hand-made file, read as serve-bench reads its own.
std::vector<RequestSample> hand_made() {
  const auto file =
      read_serve_requests(std::string(MOESWEEP_TEST_DATA) + "/serve/goodput_requests.jsonl");
  std::vector<RequestSample> out;
  for (const auto& line : file.lines)
    if (line.value("phase", "measure") == "measure") out.push_back(sample_of_line(line));
  return out;
}

TEST(Goodput, ThroughputAndPercentilesOfTheHandMadeFile) {
  const RateStats s = rate_stats(hand_made(), {});
  EXPECT_EQ(s.sent, 6);
  EXPECT_EQ(s.ok, 5);
  EXPECT_EQ(s.failed, 1);
  // From the first start (0 s) to the last end (1.5 s + 3.4 s).
  EXPECT_DOUBLE_EQ(s.duration_s, 4.9);
  EXPECT_DOUBLE_EQ(s.requests_per_s, 5 / 4.9);
  EXPECT_DOUBLE_EQ(s.output_tokens_per_s, 41 / 4.9);  // 10 + 10 + 10 + 10 + 1
  EXPECT_DOUBLE_EQ(s.input_tokens_per_s, 500 / 4.9);
  // TTFT of the five that ended: 100 150 200 300 2500 (nearest rank).
  EXPECT_DOUBLE_EQ(s.ttft.mean, 650);
  EXPECT_DOUBLE_EQ(s.ttft.p50, 200);
  EXPECT_DOUBLE_EQ(s.ttft.p90, 2500);
  EXPECT_DOUBLE_EQ(s.ttft.p99, 2500);
  // TPOT (E2E - TTFT) / (tokens - 1) of those with two tokens or more: 100 200 100 100.
  EXPECT_EQ(s.tpot.n, 4);
  EXPECT_DOUBLE_EQ(s.tpot.mean, 125);
  EXPECT_DOUBLE_EQ(s.tpot.p50, 100);
  EXPECT_DOUBLE_EQ(s.tpot.p99, 200);
  EXPECT_EQ(s.itl.n, 36);
  EXPECT_DOUBLE_EQ(s.e2e.p50, 1200);
  EXPECT_TRUE(s.slos.empty());
  EXPECT_EQ(s.to_json().count("goodput"), 0u);  // no SLOs: no goodput claimed
}

TEST(Goodput, GoodRequestsMeetEveryBoundAndAFailedOneMeetsNone) {
  const RateStats s = rate_stats(hand_made(), parse_slos("ttft_p99=1000ms,tpot_p99=150ms"));
  // Good: #1 (100 ms, 100 ms), #3 (300, 100), #6 (150 ms, one token: TPOT 0).
  // Not: #2 (TPOT 200), #4 (TTFT 2500), #5 (failed).
  EXPECT_EQ(s.good, 3);
  EXPECT_DOUBLE_EQ(s.goodput_requests_per_s, 3 / 4.9);
  EXPECT_DOUBLE_EQ(s.goodput_tokens_per_s, 21 / 4.9);
  ASSERT_EQ(s.slos.size(), 2u);
  // TTFT p99 over all six sent: the failed one counts as infinitely late.
  EXPECT_TRUE(std::isinf(s.slos[0].value));
  EXPECT_FALSE(s.slos[0].met);
  EXPECT_FALSE(s.slos_met());
  EXPECT_TRUE(std::isinf(s.worst_slo_ratio()));
  const auto j = s.to_json();
  EXPECT_TRUE(j["slos"][0]["value_ms"].is_null());
  EXPECT_DOUBLE_EQ(j["goodput"]["share"].get<double>(), 0.5);
}

TEST(Goodput, AMedianBoundIsMetWhereTheTailIsNot) {
  // TTFT of the six sent: 100 150 200 300 2500 inf; p50 (rank 3) = 200.
  const RateStats s = rate_stats(hand_made(), parse_slos("ttft_p50=250ms"));
  ASSERT_EQ(s.slos.size(), 1u);
  EXPECT_DOUBLE_EQ(s.slos[0].value, 200);
  EXPECT_TRUE(s.slos_met());
  EXPECT_DOUBLE_EQ(s.worst_slo_ratio(), 200.0 / 250);
  EXPECT_EQ(s.good, 3);  // #1 #2 #6; not #3 (300 ms), #4 (2500 ms), the failed #5
  // A request's own ITL at the SLO's statistic: #2's are all 200 ms.
  EXPECT_EQ(rate_stats(hand_made(), parse_slos("itl_p99=150ms")).good, 4);  // #1 #3 #4 #6
  EXPECT_EQ(rate_stats(hand_made(), parse_slos("e2e_mean=1.5s")).good, 3);  // #1 #3 #6
}

TEST(Goodput, SloTermsParseOrAreRefused) {
  const auto slos = parse_slos("ttft_p99=2000ms,tpot=200,e2e_mean=1.5s,itl_p90=40ms");
  ASSERT_EQ(slos.size(), 4u);
  EXPECT_EQ(slos[0].key(), "ttft_p99");
  EXPECT_DOUBLE_EQ(slos[0].bound_ms, 2000);
  EXPECT_EQ(slos[1].key(), "tpot_p99");  // p99 when left out; ms when no unit
  EXPECT_DOUBLE_EQ(slos[2].bound_ms, 1500);
  EXPECT_EQ(slos[0].label(), "ttft_p99 <= 2 s");
  EXPECT_EQ(slos_label({slos[1]}), "tpot_p99 <= 200 ms");
  EXPECT_TRUE(parse_slos("").empty());
  for (const char* bad : {"ttft", "ttft_p98=1", "latency_p99=1", "ttft=-1", "ttft=0", "ttft=1e",
                          "ttft=1h", "ttft=1,ttft_p99=2", "ttft=1e99"})
    EXPECT_NE(test::refused([&] { parse_slos(bad); }).find("--slo"), std::string::npos) << bad;
}

}  // namespace
}  // namespace moesweep
