// A worker whose answers break the protocol (issue 20, fuzz/fuzz_worker_reply.cpp):
// moesweep reports it as the engine's failure (EngineError: the sweep fails
// those points and goes on; a broken event line: EngineCrash, the worker
// killed), never as an exception of the JSON library that ends the whole
// command as an internal error. The workers here are test doubles (shell
// scripts answering canned lines): the real worker never sends these.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "engine/engine.hpp"
#include "engine/routing_observer.hpp"
#include "engine/worker_protocol.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

// The hello and load replies of the real worker (fuzz/corpus/worker_reply/),
// shortened; then `context` and `decode` answer the next two requests, and
// {"ok":true} every later one (the context's free).
std::filesystem::path scripted_worker(const std::string& name, const std::string& context,
                                      const std::string& decode) {
  const std::string hello =
      R"({"ok":true,"protocol":2,"engine":{"protocol":2,"kind":"llama.cpp","release":"v0.4.0",)"
      R"("commit":"80fb11ac73e66d89eae2c6a91d8a77428fa733ed","build":"test double",)"
      R"("cpu_variant":"haswell","library":"","cpu_features":["AVX2"],"system_info":""}})";
  const std::string load =
      R"({"ok":true,"engine_log":"","facts":{"arch":"deepseek2","description":"d","file_type":"",)"
      R"("n_ctx_train":262144,"n_layer":2,"n_params":525081360,"n_vocab":102400,"path":"x.gguf",)"
      R"("size_bytes":324099136}})";
  const std::filesystem::path path = test::scratch_dir() / name;
  std::ofstream(path) << "#!/bin/sh\n"
                      << "read l; echo '" << hello << "'\n"
                      << "read l; echo '" << load << "'\n"
                      << "read l; echo '" << context << "'\n"
                      << "read l; printf '%s\\n' '" << decode << "'\n"
                      << "while read l; do echo '{\"ok\":true}'; done\n";  // free
  ::chmod(path.c_str(), 0755);
  return path;
}

const std::string kContext = R"({"ok":true,"ctx":1,"n_ctx":512,"engine_log":""})";

class CountingObserver : public RoutingObserver {
 public:
  void on_decode(int, bool) override { ++decodes; }
  void on_routing(int, int, int, const int32_t*) override { ++layers; }
  int decodes = 0, layers = 0;
};

TEST(WorkerReply, AReplyMissingItsFieldIsAnEngineError) {
  // The sweep catches EngineError (fails the context's points, goes on); a
  // ProtocolError that is not one reached main as "internal error", exit 1.
  ModelLoadParams load;
  load.path = "x.gguf";
  LoadedModel model(load, scripted_worker("no-seconds", kContext, R"({"ok":true})"));
  LiveContext ctx(model, ContextParams{});
  EXPECT_THROW(ctx.generate({1}, 0), EngineError);
}

// Per-token times (issue 46) are checked against the call they belong to:
// one per token, adding up to no more than the call's seconds.
TEST(WorkerReply, TokenTimesAreOnePerTokenAndWithinTheCall) {
  ModelLoadParams load;
  load.path = "x.gguf";
  const DecodeOptions timed{true, true};
  {
    LoadedModel model(load, scripted_worker("token-times", kContext,
                                            R"({"ok":true,"seconds":0.00001,"token_ns":)"
                                            R"([1000,1000,900],"inputs":"0a"})"));
    LiveContext ctx(model, ContextParams{});
    const DecodeResult r = ctx.generate({1, 2, 3}, 0, timed);
    EXPECT_EQ(r.token_ns, (std::vector<int64_t>{1000, 1000, 900}));
    EXPECT_EQ(r.inputs, "0a");
  }
  // (a scripted worker answers at once: its seconds must stay below moesweep's clock)
  for (const char* bad : {R"({"ok":true,"seconds":0.00001,"token_ns":[1000,1000]})",
                          R"({"ok":true,"seconds":0.00001,"token_ns":[5000,5000,5000]})",
                          R"({"ok":true,"seconds":0.00001,"token_ns":[0,1,1]})",
                          R"({"ok":true,"seconds":0.00001})"}) {
    LoadedModel model(load, scripted_worker("token-times-bad", kContext, bad));
    LiveContext ctx(model, ContextParams{});
    EXPECT_THROW(ctx.generate({1, 2, 3}, 0, timed), EngineError) << bad;
  }
}

TEST(WorkerReply, ARoutingEventWithoutIdsIsAWorkerFailure) {
  // Found by fuzz_worker_reply: ev.at("ids") threw the JSON library's
  // out_of_range, which WorkerProcess did not take for a broken worker.
  ModelLoadParams load;
  load.path = "x.gguf";
  LoadedModel model(load, scripted_worker("no-ids", kContext,
                                          R"({"event":"routing","layer":1,"n_tokens":1,"n_used":8})"
                                          "\n"
                                          R"({"ok":true,"seconds":0.01})"));
  CountingObserver routing;
  LiveContext ctx(model, ContextParams{}, &routing);
  EXPECT_THROW(ctx.generate({1}, 0), EngineCrash);
  EXPECT_EQ(routing.layers, 0);
}

}  // namespace
}  // namespace moesweep
