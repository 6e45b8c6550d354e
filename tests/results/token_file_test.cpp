// tokens.jsonl (issue 46): what the sweep's TokenLog writes reads back field
// for field; a damaged or hostile file is a UserError naming the line (exit 2
// from the CLI), within bounds; a torn last line is left out; the CSV export
// has one row per token; the per-point summary's statistics on hand-made
// times.
#include <gtest/gtest.h>

#include <fstream>

#include "results/token_file.hpp"
#include "results/token_times.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

std::filesystem::path written_file(const std::string& name) {
  const auto path = test::scratch_dir() / name;
  std::filesystem::remove(path);
  PointParams params;
  params.n_kv = 64;
  const std::vector<int32_t> tokens = {5, 6, 7};
  const std::vector<int64_t> ns = {1000, 2000, 3000};
  TokenLog log(path);
  TokenCallEvent e{.point = 2, .params = &params, .kind = "timed", .rep = 1, .call = 0, .pos0 = 64};
  e.tokens = &tokens, e.ns = &ns, e.inputs = "00ab";
  e.trace_file = "routing-c0-twin.trace.zst", e.trace_step = 17;
  log.token_call(e);
  e.kind = "routing";
  e.trace_step = 18;
  e.sim = {{"ll_misses", {1, 2, 3}}, {"instructions", {10, 20, 30}}};
  log.token_call(e);
  return path;
}

TEST(TokenFile, WhatTheSweepWritesReadsBack) {
  const TokenFile f = read_token_file(written_file("tokens.jsonl"));
  ASSERT_EQ(f.calls.size(), 2u);
  const TokenCall& c = f.calls[0];
  EXPECT_EQ(c.point, 2);
  EXPECT_TRUE(c.timed());
  EXPECT_EQ(c.rep, 1);
  EXPECT_EQ(c.pos0, 64);
  EXPECT_EQ(c.tokens, (std::vector<int32_t>{5, 6, 7}));
  EXPECT_EQ(c.ns, (std::vector<int64_t>{1000, 2000, 3000}));
  EXPECT_EQ(c.inputs, "00ab");
  EXPECT_EQ(c.trace_file, "routing-c0-twin.trace.zst");
  EXPECT_EQ(c.trace_step, 17);
  EXPECT_FALSE(f.calls[1].timed());
  EXPECT_EQ(f.calls[1].sim_ll_misses, (std::vector<double>{1, 2, 3}));
  EXPECT_FALSE(f.torn);
}

TEST(TokenFile, ExportsOneCsvRowPerToken) {
  const auto csv_file = test::scratch_dir() / "tokens.csv";
  std::ofstream(csv_file) << tokens_csv(read_token_file(written_file("tokens-csv.jsonl")));
  const std::vector<std::string> lines = test::read_lines(csv_file);
  ASSERT_EQ(lines.size(), 7u);  // header + 2 calls x 3 tokens
  EXPECT_EQ(lines[0],
            "point,key,kind,rep,call,n_kv,index,position,token,ns,sim_ll_misses,"
            "sim_instructions");
  EXPECT_NE(lines[1].find(",timed,1,0,64,0,64,5,1000,,"), std::string::npos) << lines[1];
  EXPECT_NE(lines[6].find(",routing,1,0,64,2,66,7,3000,3,30"), std::string::npos) << lines[6];
}

// Each line a sweep could never write: refused, naming the file and its line.
TEST(TokenFile, BadLinesAreRefusedNamingTheLine) {
  const std::string good =
      R"({"point":0,"key":"k","kind":"timed","rep":0,"call":0,"pos0":0,"tokens":[1,2],)"
      R"("ns":[5,6],"inputs":"ff")";
  const std::vector<std::string> bad = {
      "not json\n",
      good + R"(,"kind2":1,"ns":[5]})" + "\n",  // a time short
      good + R"(,"ns":[0,6]})" + "\n",          // no token takes 0 ns
      good + R"(,"kind":"other"})" + "\n",      // unknown kind
      good + R"(,"trace":{"file":"../routing-c0.trace.zst","step":1}})" + "\n",  // leaves the run
      good + R"(,"trace":{"file":"records.jsonl","step":1}})" + "\n",            // not a trace
      good + R"(,"trace":{"file":"routing-c0-x.trace.zst","step":-1}})" + "\n",
      good + R"(,"tokens":[]})" + "\n",
      good + R"(,"sim":{"ll_misses":[1]}})" + "\n",  // not one per token
      good + R"(,"inputs":"0123456789abcdef0"})" + "\n",
      R"([1,2,3])"
      "\n",
  };
  for (size_t i = 0; i < bad.size(); ++i) {
    const auto path = test::scratch_dir() / "bad-tokens.jsonl";
    std::ofstream(path) << good << "}\n" << bad[i];
    try {
      read_token_file(path);
      ADD_FAILURE() << "accepted: " << bad[i];
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find("bad-tokens.jsonl:2"), std::string::npos) << e.what();
    }
  }
}

TEST(TokenFile, ALineOfTooManyTokensIsRefused) {
  const auto path = test::scratch_dir() / "long-tokens.jsonl";
  {
    std::ofstream out(path);
    out << R"({"point":0,"key":"k","kind":"timed","rep":0,"call":0,"pos0":0,"inputs":"","tokens":[)";
    for (size_t i = 0; i <= kMaxTokensPerCall; ++i) out << (i ? ",1" : "1");
    out << "]}\n";
  }
  EXPECT_THROW(read_token_file(path), UserError);
}

TEST(TokenFile, ATornLastLineIsLeftOut) {
  const auto path = written_file("torn-tokens.jsonl");
  std::ofstream(path, std::ios::app) << R"({"point":3,"key":"k","kind":"tim)";
  const TokenFile f = read_token_file(path);
  EXPECT_EQ(f.calls.size(), 2u);
  ASSERT_TRUE(f.torn);
  EXPECT_EQ(f.torn->number, 3u);
}

TEST(TokenTimes, SummaryOfHandMadeTimes) {
  // Two calls of 1..5 ms and 2..6 ms: within each call 1 ms per position.
  const TokenTimeSummary s = summarize_token_times({{1000000, 2000000, 3000000, 4000000, 5000000},
                                                    {2000000, 3000000, 4000000, 5000000, 6000000}});
  EXPECT_EQ(s.tokens, 10);
  EXPECT_EQ(s.calls, 2);
  EXPECT_NEAR(s.p50_s, 3.5e-3, 1e-12);
  EXPECT_NEAR(s.max_s, 6e-3, 1e-12);
  EXPECT_NEAR(s.p90_s, 5.1e-3, 1e-12);  // linear between the 9th (5 ms) and 10th (6 ms)
  ASSERT_TRUE(s.has_slope);
  EXPECT_NEAR(s.slope_s, 1e-3, 1e-12);
  EXPECT_NEAR(s.slope_lo_s, 1e-3, 1e-9);  // no residual: a zero-width interval
  const nlohmann::json j = to_json(s);
  EXPECT_NEAR(j["slope_us_per_position"].get<double>(), 1000, 1e-6);
  EXPECT_FALSE(summarize_token_times({{5}}).has_slope);
}

TEST(TokenTimes, PairedEffectOfTwoWaysOfTiming) {
  // b is 10% slower than a in every pair.
  const PairedEffect e = paired_effect({110, 221, 330, 439}, {100, 200, 300, 400});
  EXPECT_EQ(e.pairs, 4);
  EXPECT_NEAR(e.effect, 0.10, 0.005);
  EXPECT_LT(e.lo, 0.10);
  EXPECT_GT(e.hi, 0.10);
  EXPECT_LT(e.p_value, 0.01);
  EXPECT_EQ(paired_effect({}, {}).pairs, 0);
}

}  // namespace
}  // namespace moesweep
