// Stats on samples whose summary is known by hand, and the record's JSON form:
// sweep-bench's keys with their meaning, and a lossless round trip of ours.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>

#include "results/record.hpp"
#include "results/stats.hpp"

namespace moesweep {
namespace {

TEST(Stats, KnownSampleGivesHandComputedSummary) {
  // Sum 40, mean 5; squared deviations sum to 32, so the sample sd is sqrt(32/7).
  const Stats s = Stats::of({2, 4, 4, 4, 5, 5, 7, 9});
  EXPECT_EQ(s.n, 8);
  EXPECT_DOUBLE_EQ(s.mean, 5.0);
  EXPECT_NEAR(s.sd, std::sqrt(32.0 / 7.0), 1e-12);
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_DOUBLE_EQ(s.min, 2.0);
  EXPECT_DOUBLE_EQ(s.max, 9.0);
  EXPECT_NEAR(s.cv, std::sqrt(32.0 / 7.0) / 5.0, 1e-12);
  EXPECT_NEAR(s.ci95, 2.365 * std::sqrt(32.0 / 7.0) / std::sqrt(8.0), 1e-9);
}

TEST(Stats, OddCountMedianIsTheMiddleValueRegardlessOfOrder) {
  const Stats s = Stats::of({30, 10, 20});
  EXPECT_DOUBLE_EQ(s.median, 20.0);
  EXPECT_DOUBLE_EQ(s.mean, 20.0);
  EXPECT_DOUBLE_EQ(s.sd, 10.0);
  EXPECT_DOUBLE_EQ(s.cv, 0.5);
}

TEST(Stats, SingleSampleHasNoSpread) {
  const Stats s = Stats::of({3.5});
  EXPECT_EQ(s.n, 1);
  EXPECT_DOUBLE_EQ(s.mean, 3.5);
  EXPECT_DOUBLE_EQ(s.median, 3.5);
  EXPECT_DOUBLE_EQ(s.sd, 0.0);
  EXPECT_DOUBLE_EQ(s.cv, 0.0);
  EXPECT_DOUBLE_EQ(s.ci95, 0.0);
}

TEST(Stats, EmptySampleIsAllZero) {
  const Stats s = Stats::of({});
  EXPECT_EQ(s.n, 0);
  EXPECT_DOUBLE_EQ(s.mean, 0.0);
  EXPECT_DOUBLE_EQ(s.cv, 0.0);
}

TEST(Stats, StudentT95MatchesTheTableAndTendsToTheNormalQuantile) {
  EXPECT_DOUBLE_EQ(student_t95(1), 12.706);
  EXPECT_DOUBLE_EQ(student_t95(10), 2.228);
  EXPECT_NEAR(student_t95(1000), 1.96, 0.01);
  EXPECT_GT(student_t95(25), student_t95(40));
}

Record sample_record() {
  Record r;
  r.run_id = "20261129-120000-test";
  r.point_index = 7;
  PointParams& p = r.params;
  p.model_path = "/models/kimi.gguf";
  p.model_name = "kimi-k2.5-tiny-Q4_K_S-s42-abc";
  p.model_type = "deepseek2 ?B Q4_K - Small";
  p.quant = "Q4_K_S";
  p.load_mode = "mlock";
  p.n_gpu_layers = 3;
  p.tensor_overrides = "exps=CPU";
  p.n_ctx = 8192;
  p.n_batch = 2048;
  p.n_ubatch = 512;
  p.type_k = "q8_0";
  p.type_v = "q8_0";
  p.flash_attn = 1;
  p.n_threads = 13;
  p.n_threads_batch = 26;
  p.cpu_mask = "0-15";
  p.cpu_strict = true;
  p.poll = 0;
  p.numa = "distribute";
  p.pp = 512;
  p.tg = 32;
  p.n_kv = 4096;
  r.pp.seconds = {0.5, 0.4};
  r.pp.tokens_per_s = {1024, 1280};
  r.tg.seconds = {2.0, 1.6, 1.8};
  r.tg.tokens_per_s = {16, 20, 32.0 / 1.8};
  r.pp.counters = {{"task_clock_s", 0.9}};
  r.tg.counters = {{"l3_hit_rate", {{"unavailable", "no cpu PMU"}}}};
  r.pp.summarize();
  r.tg.summarize();
  r.extra.roofline.emplace().efficiency_tg = 0.4;
  r.repetitions = {3, 2.0, false};
  r.noise = {{"steal_fraction", 0.031}, {"steal_flagged", true}, {"load_1m", 2.5}};
  return r;
}

TEST(RecordJson, CarriesSweepBenchKeysWithTheirMeaning) {
  const Record r = sample_record();
  const nlohmann::json j = record_to_json(r);
  for (const char* key :
       {"n_kv_max", "n_batch", "n_ubatch", "flash_attn", "n_gpu_layers", "n_threads",
        "n_threads_batch", "pp", "tg", "n_kv", "t_pp", "speed_pp", "t_tg", "speed_tg"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["n_kv_max"], 8192);
  EXPECT_EQ(j["flash_attn"], 1);  // sweep-bench writes an integer
  EXPECT_EQ(j["n_threads"], 13);
  EXPECT_EQ(j["n_threads_batch"], 26);
  EXPECT_EQ(j["n_kv"], 4096);
  EXPECT_DOUBLE_EQ(j["t_pp"].get<double>(), 0.45);        // mean seconds
  EXPECT_DOUBLE_EQ(j["speed_pp"].get<double>(), 1152.0);  // mean tokens/s
  EXPECT_DOUBLE_EQ(j["t_tg"].get<double>(), 1.8);
  EXPECT_FALSE(j.contains("error"));
}

TEST(RecordJson, RoundTripKeepsEveryParameterSampleAndCounter) {
  const Record r = sample_record();
  const Record back = record_from_json(nlohmann::json::parse(record_to_json(r).dump()));
  EXPECT_EQ(back.params.key_string(), r.params.key_string());
  EXPECT_EQ(back.params.model_path, r.params.model_path);
  EXPECT_EQ(back.params.model_type, r.params.model_type);
  EXPECT_EQ(back.run_id, r.run_id);
  EXPECT_EQ(back.point_index, 7);
  EXPECT_TRUE(back.ok);
  EXPECT_EQ(back.pp.seconds, r.pp.seconds);
  EXPECT_EQ(back.tg.tokens_per_s, r.tg.tokens_per_s);
  EXPECT_DOUBLE_EQ(back.tg.speed.mean, r.tg.speed.mean);
  EXPECT_DOUBLE_EQ(back.tg.speed.sd, r.tg.speed.sd);
  EXPECT_EQ(back.pp.counters, r.pp.counters);
  EXPECT_EQ(back.tg.counters, r.tg.counters);
  EXPECT_EQ(extras_to_json(back.extra), extras_to_json(r.extra));
  EXPECT_EQ(back.extra.roofline->efficiency_tg, 0.4);
  EXPECT_EQ(back.repetitions.done, 3);
  EXPECT_DOUBLE_EQ(back.repetitions.target_ci_pct, 2.0);
  EXPECT_FALSE(back.repetitions.target_met);
  EXPECT_EQ(back.noise, r.noise);
}

TEST(RecordJson, RepetitionsAndNoiseAreRecordedAndOptionalWhenRead) {
  const nlohmann::json j = record_to_json(sample_record());
  EXPECT_EQ(j["repetitions"]["done"], 3);
  EXPECT_EQ(j["repetitions"]["target_ci_pct"], 2.0);
  EXPECT_EQ(j["repetitions"]["target_met"], false);
  EXPECT_EQ(j["noise"]["steal_flagged"], true);
  // A record written before these fields existed reads as a fixed -r, met.
  nlohmann::json old = j;
  old.erase("repetitions");
  old.erase("noise");
  const Record back = record_from_json(old);
  EXPECT_EQ(back.repetitions.done, 3);
  EXPECT_EQ(back.repetitions.target_ci_pct, 0.0);
  EXPECT_TRUE(back.repetitions.target_met);
  EXPECT_TRUE(back.noise.empty());
}

TEST(RecordJson, FlashAttnAutoAndLoadModeAreWrittenAsLlamaBenchDoes) {
  Record r = sample_record();
  r.params.flash_attn = -1;
  r.params.load_mode = "auto";
  const nlohmann::json j = record_to_json(r);
  EXPECT_EQ(j["flash_attn"], -1);  // (int) LLAMA_FLASH_ATTN_TYPE_AUTO
  EXPECT_EQ(j["load_mode"], "auto");
  const Record back = record_from_json(j);
  EXPECT_EQ(back.params.flash_attn, -1);
  EXPECT_EQ(back.params.load_mode, "auto");
  EXPECT_EQ(flash_attn_name(-1), "auto");
  EXPECT_EQ(flash_attn_name(0), "off");
  EXPECT_EQ(flash_attn_name(1), "on");
}

TEST(RecordJson, OlderRecordsWithUseMmapReadAsTheLoadModeTheyMeant) {
  nlohmann::json j = record_to_json(sample_record());
  j.erase("load_mode");
  j["use_mmap"] = true;
  j["use_mlock"] = false;
  EXPECT_EQ(record_from_json(j).params.load_mode, "mmap");
  j["use_mlock"] = true;
  EXPECT_EQ(record_from_json(j).params.load_mode, "mmap+mlock");
  j["use_mmap"] = false;
  EXPECT_EQ(record_from_json(j).params.load_mode, "mlock");
  j["use_mlock"] = false;
  EXPECT_EQ(record_from_json(j).params.load_mode, "none");
  j.erase("use_mmap");
  j.erase("use_mlock");
  EXPECT_EQ(record_from_json(j).params.load_mode, "mmap");  // mmap was the default then
}

TEST(RecordJson, FailedPointKeepsItsReason) {
  Record r = sample_record();
  r.ok = false;
  r.error = "-ctv q8_0 needs flash attention";
  const nlohmann::json j = record_to_json(r);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["error"], r.error);
  const Record back = record_from_json(j);
  EXPECT_FALSE(back.ok);
  EXPECT_EQ(back.error, r.error);
}

TEST(RecordJson, PlainSweepBenchLineReadsAsOneSamplePerPhase) {
  const nlohmann::json line = {{"n_kv_max", 8192},      {"n_batch", 2048},   {"n_ubatch", 512},
                               {"flash_attn", 1},       {"n_gpu_layers", 0}, {"n_threads", 16},
                               {"n_threads_batch", 16}, {"pp", 512},         {"tg", 128},
                               {"n_kv", 1024},          {"t_pp", 2.5},       {"speed_pp", 204.8},
                               {"t_tg", 8.0},           {"speed_tg", 16.0}};
  const Record r = record_from_json(line);
  EXPECT_EQ(r.params.n_ctx, 8192);
  EXPECT_EQ(r.params.flash_attn, 1);
  EXPECT_EQ(r.params.n_kv, 1024);
  ASSERT_EQ(r.pp.seconds.size(), 1u);
  EXPECT_DOUBLE_EQ(r.pp.speed.mean, 204.8);
  EXPECT_DOUBLE_EQ(r.tg.t.mean, 8.0);
}

}  // namespace
}  // namespace moesweep
