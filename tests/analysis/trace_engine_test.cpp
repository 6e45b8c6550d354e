// Routing traces of a real twin through the real engine: the eval callback
// sees every MoE layer of every token, the ids are real top-k selections,
// and `moesweep trace` + `moesweep l3` give a popularity table and a curve.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>

#include "analysis/l3_analysis.hpp"
#include "analysis/routing_trace.hpp"
#include "engine/engine.hpp"
#include "model/gguf_inspect.hpp"
#include "support/engine_fixtures.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

TEST(TraceEngine, RecorderSeesEveryGeneratedTokenAndTheLastPrefillToken) {
  const auto path = test::tiny_twin();
  const LoadedModel model(test::load_params(path.string()));
  RoutingTrace trace;
  trace.model = trace_model_from(inspect_gguf(path));
  TraceRecorder recorder(&trace);
  ContextParams cp;
  cp.n_ctx = 256, cp.n_batch = 64, cp.n_ubatch = 64;
  LiveContext ctx(model, cp, &recorder);
  ctx.set_threads(test::threads(1));
  ctx.prefill({1, 17, 300, 42, 5, 767, 99, 250, 12, 600}, 0);
  ctx.generate({7, 8, 9, 10}, 10);
  // The tiny twin: layer 0 dense, layer 1 (the last) MoE; the last layer of a
  // prefill only computes the token whose logits are wanted.
  ASSERT_EQ(trace.steps.size(), 5u);
  EXPECT_EQ(trace.tokens(TracePhase::kPrefill), 1u);
  EXPECT_EQ(trace.tokens(TracePhase::kGeneration), 4u);
  for (const TraceStep& s : trace.steps) {
    EXPECT_EQ(s.layer, 1);
    EXPECT_EQ(s.n_used, trace.model.n_expert_used);
    EXPECT_EQ(s.n_tokens, 1u);
    std::set<uint16_t> distinct(trace.ids.begin() + static_cast<int64_t>(s.first_id),
                                trace.ids.begin() + static_cast<int64_t>(s.first_id + s.n_used));
    EXPECT_EQ(distinct.size(), s.n_used);  // top-k never picks an expert twice
    for (uint16_t e : distinct) EXPECT_LT(e, trace.model.n_expert);
  }
  // The same tokens give the same routing (the trace is a fact of the model).
  RoutingTrace again;
  recorder.trace = &again;
  ctx.rewind_to(0);
  ctx.prefill({1, 17, 300, 42, 5, 767, 99, 250, 12, 600}, 0);
  ctx.generate({7, 8, 9, 10}, 10);
  EXPECT_EQ(again.ids, trace.ids);
}

TEST(TraceEngine, TraceAndL3CommandsOnATinyTwin) {
  const auto dir = test::scratch_dir() / "traces";  // run_cli keeps its output beside
  test::tiny_twin();                                // built (or cached) under the test cache first
  const test::CommandResult t =
      test::run_cli("trace --prompt 16 --gen 48 --threads 1 --out-dir '" + dir.string() + "'");
  ASSERT_EQ(t.exit_code, 0) << t.err;
  const auto run = test::only_run_dir(dir);
  const RoutingTrace trace = read_routing_trace(run / "routing.trace.zst");
  EXPECT_EQ(trace.tokens(TracePhase::kGeneration), 48u);
  EXPECT_EQ(trace.model.n_expert, 384);
  EXPECT_GT(trace.model.hot_bytes, 0u);
  EXPECT_EQ(trace.model.extra["twin"]["name"], "kimi-k2.5");

  const test::CommandResult l3 = test::run_cli("l3 '" + run.string() + "' --no-plot");
  ASSERT_EQ(l3.exit_code, 0) << l3.err;
  EXPECT_NE(l3.out.find("popularity"), std::string::npos) << l3.out;
  std::ifstream in(run / "l3" / "l3.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  double last = 0;
  for (const auto& p : j["curve"]) {  // a bigger cache never hits less
    EXPECT_GE(p["hit"]["generation"].get<double>(), last);
    last = p["hit"]["generation"].get<double>();
  }
  // 48 tokens x 8 of 384 experts: at most 48*8 reads, each expert's first is cold.
  EXPECT_LT(j["ceiling"]["generation"].get<double>(), 1.0);
  EXPECT_EQ(j["popularity"][0]["selections"], 48 * 8 + 8);  // + the last prefill token
}

// sweep --trace-routing: one trace per context in the run directory, with
// every timed generation step of every repetition in it.
TEST(TraceEngine, SweepTraceRoutingWritesATracePerContext) {
  const auto dir = test::scratch_dir() / "runs";
  test::tiny_twin();
  const test::CommandResult r = test::run_cli(
      "sweep -m kimi-k2.5 -q Q4_K_S --scale tiny -t 1 --depths 0 -c 256 -p 16 -n 4 -r 2 "
      "--counters none --no-db --quiet --trace-routing --out-dir '" +
      dir.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::filesystem::path> traces;
  for (const auto& e : std::filesystem::directory_iterator(test::only_run_dir(dir)))
    if (e.path().filename().string().rfind("routing-c0-", 0) == 0) traces.push_back(e.path());
  ASSERT_EQ(traces.size(), 1u);
  const RoutingTrace t = read_routing_trace(traces[0]);
  EXPECT_GE(t.tokens(TracePhase::kGeneration), 2u * 4);  // -n 4, -r 2 (and any warm-up)
  EXPECT_EQ(t.model.extra["source"], "moesweep sweep --trace-routing");
}

// Enable when twins take --routing-skew (helper "axes"): the realised skew
// of the router must rise with the requested one, and so must the hit rate
// of a 32 MiB cache.
TEST(TraceEngine, RealisedSkewRisesWithRequestedSkew) {
  double last_gini = -1, last_hit = -1;
  for (const char* s : {"0", "1.5"}) {
    const auto dir = test::scratch_dir() / (std::string("skew-") + s);
    const test::CommandResult t =
        test::run_cli(std::string("trace --experts 64 --routing-skew ") + s +
                      " --prompt 64 --gen 256 --threads 1 --out-dir '" + dir.string() + "'");
    ASSERT_EQ(t.exit_code, 0) << t.err;
    const RoutingTrace trace = read_routing_trace(test::only_run_dir(dir) / "routing.trace.zst");
    const L3Analysis a = analyse_trace(trace, {});
    EXPECT_GT(a.mean.gini, last_gini) << s;
    // The experts alone (the twin's ~10 MiB hot set, read every token, would
    // flush an 8 MiB LRU whatever the routing): at 8 MiB the 27 MiB pool does
    // not fit, so the skew's smaller set of popular experts shows.
    const auto reads = expert_block_accesses(trace);
    const double hit8 = LruCurve(reads, stack_distances(reads)).at(8 << 20).generation;
    EXPECT_GT(hit8, last_hit + 0.1) << s;
    last_gini = a.mean.gini, last_hit = hit8;
  }
}

}  // namespace
}  // namespace moesweep
