// The requests as the worker reads them (engine/worker_protocol.hpp,
// fuzz/fuzz_worker_request.cpp): what moesweep writes reads back as it was
// meant, and a broken request is refused as a ProtocolError naming the field
// (the worker answers it as the engine's failure), never as an exception of
// the JSON library.
#include <gtest/gtest.h>

#include <string>

#include "engine/worker_protocol.hpp"

namespace moesweep {
namespace {

namespace wp = worker_protocol;
using nlohmann::json;

// The ProtocolError's message when `read` refuses `req`; "" when it reads it.
template <typename F>
std::string refusal(F&& read, const json& req) {
  try {
    read(req);
  } catch (const wp::ProtocolError& e) {
    return e.what();
  }
  return "";
}

TEST(WorkerRequest, WhatMoesweepWritesReadsBackAsMeant) {
  ModelLoadParams load;
  load.path = "m.gguf";
  load.load_mode = "mmap";
  load.tensor_overrides = {"exps=CPU"};
  load.knobs.mla = 2;
  const ModelLoadParams l = wp::load_request_from({{"op", "load"}, {"model", wp::to_json(load)}});
  EXPECT_EQ(l.path, "m.gguf");
  EXPECT_EQ(l.tensor_overrides, load.tensor_overrides);
  EXPECT_EQ(l.knobs.mla, 2);

  ContextParams ctx;
  ctx.n_ctx = 4096;
  ctx.type_k = "q8_0";
  const wp::ContextRequest c = wp::context_request_from(
      {{"op", "context"}, {"context", wp::to_json(ctx)}, {"routing", true}});
  EXPECT_TRUE(c.routing);
  EXPECT_EQ(c.params.n_ctx, 4096);
  EXPECT_EQ(c.params.type_k, "q8_0");

  const wp::DecodeRequest d = wp::decode_request_from(
      {{"op", "decode"}, {"ctx", 3}, {"tokens", {5, 0, 2147483647}}, {"pos0", 64}, {"chunk", 512}});
  EXPECT_EQ(d.ctx, 3);
  EXPECT_EQ(d.tokens, (std::vector<int32_t>{5, 0, 2147483647}));
  EXPECT_EQ(d.pos0, 64);
  EXPECT_EQ(d.chunk, 512);

  EXPECT_EQ(wp::rewind_request_from({{"op", "rewind"}, {"ctx", 1}, {"n_kv", 8}}), 8);
  const wp::QuantizeRequest q = wp::quantize_request_from(
      {{"op", "quantize"}, {"in", "a"}, {"out", "b"}, {"ftype", 14}, {"n_threads", 0}});
  EXPECT_EQ(q.out, "b");
  EXPECT_EQ(q.ftype, 14);
  const wp::ExpertGemvRequest g = wp::expert_gemv_request_from({{"op", "expert_gemv"},
                                                                {"type", "q8_0"},
                                                                {"hidden", 256},
                                                                {"rows", 64},
                                                                {"used", 2},
                                                                {"layers", 2},
                                                                {"experts", 8},
                                                                {"threads", 1},
                                                                {"millis", 50}});
  EXPECT_EQ(g.shape.rows, 64);
  EXPECT_DOUBLE_EQ(g.seconds, 0.05);
}

TEST(WorkerRequest, ABrokenRequestIsAProtocolErrorNamingTheField) {
  // A missing sub-object was the JSON library's out_of_range before.
  EXPECT_NE(refusal(wp::load_request_from, {{"op", "load"}}).find("'model'"), std::string::npos);
  EXPECT_NE(
      refusal(wp::context_request_from, {{"op", "context"}, {"routing", false}}).find("'context'"),
      std::string::npos);
  EXPECT_NE(refusal(wp::threads_request_from, {{"op", "threads"}, {"ctx", 1}}).find("'threads'"),
            std::string::npos);
  EXPECT_NE(refusal(wp::decode_request_from, {{"op", "decode"}, {"ctx", 1}}).find("'tokens'"),
            std::string::npos);
  const json decode = {{"op", "decode"}, {"ctx", 1}, {"pos0", 0}, {"chunk", 1}};
  for (const json& tokens : {json(-1), json::array({-1}), json::array({2147483648LL}),
                             json::array({1.5}), json::array({"7"})}) {
    json req = decode;
    req["tokens"] = tokens;
    EXPECT_NE(refusal(wp::decode_request_from, req), "") << tokens.dump();
  }
  EXPECT_NE(refusal(wp::rewind_request_from, {{"n_kv", -1}}), "");
  EXPECT_NE(refusal(wp::quantize_request_from, {{"in", "a"}, {"out", "b"}, {"ftype", 1024}}), "");
  EXPECT_NE(refusal([](const json& r) { return wp::request_ctx(r, "request"); }, {{"ctx", 0}}), "");
  EXPECT_NE(refusal(wp::request_op, json::array()), "");
}

}  // namespace
}  // namespace moesweep
