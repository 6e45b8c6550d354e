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
std::string refusal(F read, const json& req) {
  try {
    read(req);
  } catch (const wp::ProtocolError& e) {
    return e.what();
  }
  return "";
}

// The same for the request message `M`.
template <typename M>
std::string refused_as(const json& req) {
  return refusal([](const json& r) { return wp::decode<M>(r); }, req);
}

TEST(WorkerRequest, WhatMoesweepWritesReadsBackAsMeant) {
  ModelLoadParams load;
  load.path = "m.gguf";
  load.load_mode = "mmap";
  load.tensor_overrides = {"exps=CPU"};
  load.knobs.mla = 2;
  const json load_line = wp::encode(wp::LoadRequest{load});
  EXPECT_EQ(wp::request_op(load_line), "load");
  const ModelLoadParams l = wp::decode<wp::LoadRequest>(load_line).model;
  EXPECT_EQ(l.path, "m.gguf");
  EXPECT_EQ(l.tensor_overrides, load.tensor_overrides);
  EXPECT_EQ(l.knobs.mla, 2);

  ContextParams ctx;
  ctx.n_ctx = 4096;
  ctx.type_k = "q8_0";
  const auto c = wp::decode<wp::ContextRequest>(wp::encode(wp::ContextRequest{true, ctx}));
  EXPECT_TRUE(c.routing);
  EXPECT_EQ(c.params.n_ctx, 4096);
  EXPECT_EQ(c.params.type_k, "q8_0");

  const auto d =
      wp::decode<wp::DecodeRequest>(wp::encode(wp::DecodeRequest{3, {5, 0, 2147483647}, 64, 512}));
  EXPECT_EQ(d.ctx, 3);
  EXPECT_EQ(d.tokens, (std::vector<int32_t>{5, 0, 2147483647}));
  EXPECT_EQ(d.pos0, 64);
  EXPECT_EQ(d.chunk, 512);
  EXPECT_FALSE(d.token_times);
  EXPECT_TRUE(d.routing);  // absent from an older client's request: a traced context records it
  const auto absent = wp::decode<wp::DecodeRequest>(
      json::parse(R"({"op":"decode","ctx":1,"tokens":[7],"pos0":0,"chunk":1})"));
  EXPECT_FALSE(absent.token_times);
  EXPECT_TRUE(absent.routing);

  EXPECT_EQ(wp::decode<wp::RewindRequest>(wp::encode(wp::RewindRequest{1, 8})).n_kv, 8);
  const auto q = wp::decode<wp::QuantizeRequest>(wp::encode(wp::QuantizeRequest{"a", "b", 14, 0}));
  EXPECT_EQ(q.out, "b");
  EXPECT_EQ(q.ftype, 14);
  const auto g = wp::decode<wp::ExpertGemvRequest>(
      wp::encode(wp::ExpertGemvRequest{{"q8_0", 256, 64, 2, 2}, 8, 1, 50}));
  EXPECT_EQ(g.shape.rows, 64);
  EXPECT_EQ(g.millis, 50);
}

// The wire itself, as a worker of another build reads and writes it: the
// table must not rename a field (that is a new protocol version).
TEST(WorkerRequest, TheWireKeepsItsFieldNames) {
  const json gemv = wp::encode(wp::ExpertGemvRequest{{"q8_0", 256, 64, 2, 2}, 8, 1, 50});
  EXPECT_EQ(gemv, json::parse(R"({"op":"expert_gemv","type":"q8_0","hidden":256,"rows":64,)"
                              R"("used":2,"layers":2,"experts":8,"threads":1,"millis":50})"));
  EXPECT_EQ(wp::encode(wp::DecodeRequest{1, {7}, 0, 1, true, false}),
            json::parse(R"({"op":"decode","ctx":1,"tokens":[7],"pos0":0,"chunk":1,)"
                        R"("token_times":true,"routing":false})"));
  EXPECT_EQ(wp::encode(wp::DecodeReply{0.5, {1, 2}, "00ff"}),
            json::parse(R"({"ok":true,"seconds":0.5,"token_ns":[1,2],"inputs":"00ff"})"));
  EXPECT_EQ(wp::encode(wp::ThreadsReply{{4, 2}}),
            json::parse(R"({"ok":true,"n_threads":4,"n_threads_batch":2})"));
  EXPECT_EQ(wp::encode(wp::HelloRequest{}), json::parse(R"({"op":"hello","protocol":2})"));
}

TEST(WorkerRequest, ABrokenRequestIsAProtocolErrorNamingTheField) {
  // A missing sub-object was the JSON library's out_of_range before.
  EXPECT_NE(refused_as<wp::LoadRequest>({{"op", "load"}}).find("'model'"), std::string::npos);
  EXPECT_NE(
      refused_as<wp::ContextRequest>({{"op", "context"}, {"routing", false}}).find("'context'"),
      std::string::npos);
  EXPECT_NE(refused_as<wp::ThreadsRequest>({{"op", "threads"}, {"ctx", 1}}).find("'threads'"),
            std::string::npos);
  EXPECT_NE(refused_as<wp::DecodeRequest>({{"op", "decode"}, {"ctx", 1}}).find("'tokens'"),
            std::string::npos);
  // A field inside a sub-object is named by its path.
  json load = wp::encode(wp::LoadRequest{});
  load["model"]["knobs"]["mla"] = 9;
  EXPECT_NE(refused_as<wp::LoadRequest>(load).find("'model.knobs.mla'"), std::string::npos);
  const json decode = {{"op", "decode"}, {"ctx", 1}, {"pos0", 0}, {"chunk", 1}};
  for (const json& tokens : {json(-1), json::array({-1}), json::array({2147483648LL}),
                             json::array({1.5}), json::array({"7"})}) {
    json req = decode;
    req["tokens"] = tokens;
    EXPECT_NE(refused_as<wp::DecodeRequest>(req), "") << tokens.dump();
  }
  json flag = decode;
  flag["tokens"] = json::array({1});
  flag["token_times"] = 1;  // a flag is true or false, not a number
  EXPECT_NE(refused_as<wp::DecodeRequest>(flag).find("'token_times'"), std::string::npos);
  EXPECT_NE(refused_as<wp::RewindRequest>({{"op", "rewind"}, {"ctx", 1}, {"n_kv", -1}}), "");
  EXPECT_NE(refused_as<wp::QuantizeRequest>(
                {{"op", "quantize"}, {"in", "a"}, {"out", "b"}, {"ftype", 1024}}),
            "");
  EXPECT_NE(refused_as<wp::FreeRequest>({{"op", "free"}, {"ctx", 0}}), "");
  // A request of another op is not read as this one.
  EXPECT_NE(refused_as<wp::FreeRequest>({{"op", "cached"}, {"ctx", 1}}), "");
  EXPECT_NE(refusal(wp::request_op, json::array()), "");
}

}  // namespace
}  // namespace moesweep
