// A point's extras, typed (issue 47 item 1): records written before the
// change (tests/data/runs, as the sweeps of rounds 2 and 5 wrote them) read
// into members and write back as they were; what this version does not know
// survives a rewrite.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "results/record.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;

const fs::path kEarlierRuns = fs::path(test::test_data_dir()) / "runs";

std::vector<nlohmann::json> lines_of(const fs::path& file) {
  std::ifstream in(file);
  std::vector<nlohmann::json> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  return out;
}

// Every record of a run writes its extras back as read; `whole`: the whole
// line too (a run of this layout; older ones gain the keys added since).
void expect_round_trip(const fs::path& run, bool whole) {
  const std::vector<nlohmann::json> lines = lines_of(run / "records.jsonl");
  ASSERT_FALSE(lines.empty());
  for (const nlohmann::json& line : lines) {
    const nlohmann::json back = record_to_json(record_from_json(line));
    EXPECT_EQ(back["extra"], line["extra"]);
    if (whole) EXPECT_EQ(back, line);
  }
}

TEST(PointExtras, Round5RecordsReadIntoMembers) {
  const std::vector<nlohmann::json> lines =
      lines_of(kEarlierRuns / "round5-engines" / "records.jsonl");
  ASSERT_EQ(lines.size(), 4u);
  std::vector<std::string> names;
  for (const nlohmann::json& line : lines) {
    const Record r = record_from_json(line);
    ASSERT_TRUE(r.extra.engine);
    const EngineStamp& e = *r.extra.engine;
    EXPECT_EQ(e.kind, "llama.cpp");
    EXPECT_EQ(e.name, r.params.engine);  // the stamp names the engine the params join on
    names.push_back(e.name.value_or(""));
    EXPECT_EQ(e.release, e.name == "default" ? "v0.4.0" : "v0.5.0");
    ASSERT_TRUE(e.build_flags);
    EXPECT_TRUE(e.build_flags->empty());
    ASSERT_TRUE(r.extra.applied);
    const AppliedSettings& a = *r.extra.applied;
    EXPECT_EQ(a.n_ctx, r.params.n_ctx);
    EXPECT_EQ(a.n_ubatch, 64);
    EXPECT_EQ(a.n_threads, 1);
    EXPECT_EQ(a.type_k, "f16");
    EXPECT_FALSE(a.fused_moe);  // not an ik_llama.cpp engine: no such switch
    EXPECT_EQ(a.n_batch, 512);  // planned 2048: the engine caps the batch at the context
    ASSERT_EQ(r.extra.applied_notes.size(), 1u);
    EXPECT_NE(r.extra.applied_notes[0].find("n_batch 512"), std::string::npos);
    ASSERT_TRUE(r.extra.roofline);
    const PointRoofline& roof = *r.extra.roofline;
    EXPECT_GT(roof.active_bytes_per_token.value_or(0), 0);
    EXPECT_EQ(roof.bandwidth_source, "measured");
    EXPECT_GT(roof.routed_expert_bytes_total.value_or(0), 0u);
    EXPECT_TRUE(roof.untyped.empty()) << roof.untyped.dump();
    EXPECT_TRUE(r.extra.untyped.empty()) << r.extra.untyped.dump();
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names,
            (std::vector<std::string>{"default", "default", "release-3.22.1", "release-3.22.1"}));
}

TEST(PointExtras, RunsOfEarlierRoundsWriteBackUnchanged) {
  for (const char* run :
       {"round1-sweep", "round1-failed", "round2-sweep", "round2-shard", "round2-merged"}) {
    SCOPED_TRACE(run);
    expect_round_trip(kEarlierRuns / run, false);
  }
  expect_round_trip(kEarlierRuns / "round5-engines", true);
}

TEST(PointExtras, Round2RooflineReadsWithoutTheLaterFigures) {
  const Record r =
      record_from_json(lines_of(kEarlierRuns / "round2-sweep" / "records.jsonl").front());
  ASSERT_TRUE(r.extra.roofline);
  EXPECT_EQ(r.extra.roofline->routed_expert_bytes_per_layer, 169872384u);
  EXPECT_FALSE(r.extra.roofline->routed_expert_bytes_total);  // round 2 wrote one layer's
  EXPECT_FALSE(r.extra.engine);
  EXPECT_FALSE(r.extra.applied);
}

// A newer version's keys, and a known key of another type, are kept as read.
TEST(PointExtras, UnknownAndMistypedValuesSurviveARewrite) {
  const nlohmann::json extra = {
      {"token_times", {{"p50_ms", 0.8125}}},
      {"energy", {{"joules", 12.5}}},
      {"roofline", {{"l3_bytes", "32 MiB"}, {"roofline_tg", 40.5}, {"future", 1}}},
      {"applied", {{"n_ctx", nullptr}, {"n_threads", 2}}},
      {"engine", {{"kind", 7}}}};
  const PointExtras e = extras_from_json(extra);
  ASSERT_TRUE(e.roofline);
  EXPECT_FALSE(e.roofline->l3_bytes);
  EXPECT_EQ(e.roofline->roofline_tg, 40.5);
  EXPECT_FALSE(e.applied->n_ctx);
  EXPECT_EQ(e.applied->n_threads, 2);
  EXPECT_FALSE(e.engine->kind);
  EXPECT_EQ(e.token_times["p50_ms"], 0.8125);
  EXPECT_TRUE(e.untyped.contains("energy"));
  nlohmann::json expected = extra;
  // Unreported settings are written as null, as the sweep writes them.
  for (const char* k : {"n_threads_batch", "n_batch", "n_ubatch", "type_k", "type_v", "flash_attn"})
    expected["applied"][k] = nullptr;
  EXPECT_EQ(extras_to_json(e), expected);
}

TEST(PointExtras, FlatRooflineFiguresOfOldRecordsStillRead) {
  const PointExtras e = extras_from_json({{"efficiency_tg", 0.4}, {"active_bytes_per_token", 2e9}});
  const std::optional<PointRoofline> roof = roofline_or_flat(e);
  ASSERT_TRUE(roof);
  EXPECT_EQ(roof->efficiency_tg, 0.4);
  EXPECT_FALSE(roofline_or_flat(extras_from_json(nlohmann::json::object())));
}

}  // namespace
}  // namespace moesweep
