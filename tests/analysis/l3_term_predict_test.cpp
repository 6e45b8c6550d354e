// predict --trace's arithmetic, moved out of the CLI: the bytes a token
// reads split into routed and hot, the hardware's cache with one expert's
// matrices as the model's files lay them out (from its architecture's tensor
// list, never its name), and the quant's expert type.
#include <gtest/gtest.h>

#include "analysis/hand_trace.hpp"
#include "analysis/l3_term_predict.hpp"
#include "model/arch_tensors.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

TEST(L3TermPredict, TokenBytesArePredictsActiveParametersSplitIntoRoutedAndHot) {
  const ModelProfile kimi = load_model_profile("kimi-k2.5");
  const ParamCount c = count_params(kimi);
  const TokenBytes b = token_bytes(kimi, 0.5, 1e6, 100);
  EXPECT_DOUBLE_EQ(b.routed_total, static_cast<double>(c.routed_experts) * 0.5);
  const double routed = b.routed_total * static_cast<double>(kimi.shape.experts_used) /
                        static_cast<double>(kimi.shape.experts);
  EXPECT_DOUBLE_EQ(b.in.routed_bytes_per_token, routed);
  EXPECT_DOUBLE_EQ(b.in.hot_bytes,
                   static_cast<double>(c.active + kimi.shape.hidden) * 0.5 - routed);
  EXPECT_EQ(b.in.streamed_bytes, 1e6);
  EXPECT_EQ(b.in.bandwidth_gbps, 100);
  ModelProfile dense = load_model_profile("llama3-70b");
  EXPECT_EQ(token_bytes(dense, 1, 0, 1).in.routed_bytes_per_token, 0);
}

TEST(L3TermPredict, NoShippedArchitectureFusesGateAndUpSoAnExpertHasThreeMatrices) {
  for (const std::string& name : list_model_profiles()) {
    const ModelProfile p = load_model_profile(name);
    EXPECT_FALSE(ships_fused_gate_up_experts(p)) << name;
    if (p.shape.experts == 0) continue;
    const CacheMachine m = predicted_cache_machine(p, "Q8_0", 32 << 20, 16, 2);
    EXPECT_EQ(m.matrices.size(), 3u) << name << ": gate, up and down apart";
  }
  ModelProfile unknown = load_model_profile("kimi-k2.5");
  unknown.arch = "no-such-arch";  // no tensor list: the converter's default, apart
  EXPECT_FALSE(ships_fused_gate_up_experts(unknown));
}

TEST(L3TermPredict, TheHardwaresDomainsOrOneSharedCache) {
  const ModelProfile kimi = load_model_profile("kimi-k2.5");
  const CacheMachine domains = predicted_cache_machine(kimi, "Q4_K_S", 64 << 20, 16, 2);
  EXPECT_EQ(domains.layout.threads(), 16);
  ASSERT_EQ(domains.layout.domain_bytes.size(), 2u);
  EXPECT_EQ(domains.layout.domain_bytes[0], 32u << 20);
  const CacheMachine shared = predicted_cache_machine(kimi, "Q4_K_S", 64 << 20, 0, 2);
  ASSERT_EQ(shared.layout.domain_bytes.size(), 1u);
  EXPECT_EQ(shared.layout.domain_bytes[0], 64u << 20);
}

TEST(L3TermPredict, ExpertTypeOfQuant) {
  EXPECT_EQ(expert_type_of_quant("Q4_K_S"), "q4_K");
  EXPECT_EQ(expert_type_of_quant("q6_k"), "q6_K");
  EXPECT_EQ(expert_type_of_quant("Q8_0"), "q8_0");
  EXPECT_EQ(expert_type_of_quant("F16"), "f16");
}

TEST(L3TermPredict, ThePredictionOfATraceAtAModelsSizes) {
  const auto dir = test::scratch_dir();
  write_routing_trace(test::one_expert_per_token({0, 1, 2, 0, 1, 2, 3, 0}),
                      dir / "routing.trace.zst");
  PredictL3Input in;
  in.trace = dir.string();  // a directory: its routing.trace.zst
  in.model_profile = "kimi-k2.5";
  in.quant = "Q4_K_S";
  in.bytes_per_weight = 0.5;
  in.l3_bytes = 512.0 * (1 << 20);
  in.cores = 16;
  in.l3_domains = 2;
  in.bandwidth_gbps = 400;
  const L3TermPrediction r = predict_l3_term(in);
  EXPECT_EQ(r.trace_file, dir / "routing.trace.zst");
  EXPECT_EQ(r.model.name, "kimi-k2.5");
  EXPECT_EQ(r.l3_bytes, in.l3_bytes);
  EXPECT_GT(r.shared.tps_no_l3, 0);
  EXPECT_GE(r.shared.tps_with_l3, r.shared.tps_no_l3);  // hits only take bytes away
  EXPECT_LE(r.band.pessimistic, r.band.optimistic);
  EXPECT_LE(r.tps_pessimistic, r.tps_optimistic);
  EXPECT_EQ(r.machine.layout.threads(), 16);
}

}  // namespace
}  // namespace moesweep
