#include "engine/worker/worker_loop.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <string>

#include "engine/worker/engine_facts.hpp"
#include "engine/worker/engine_log.hpp"
#include "engine/worker/expert_gemv.hpp"
#include "engine/worker/llama_model.hpp"
#include "engine/worker/quantize.hpp"
#include "engine/worker_protocol.hpp"
#include "util/error.hpp"

namespace moesweep::worker {
namespace {

namespace wp = worker_protocol;
using nlohmann::json;

// The engine's INFO lines of a load or a context (its buffer sizes, which its
// API does not give): moesweep reads them (engine/engine_memory.hpp). Capped,
// the first lines kept: the buffer lines come early.
std::string bounded_log(std::string text) {
  constexpr size_t kMax = size_t{256} << 10;
  if (text.size() > kMax) text.resize(kMax);
  return text;
}

void send(const json& msg) {
  const std::string line = msg.dump() + "\n";
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fflush(stdout);
}

// Routing seen during one decode, sent as event lines after it (never inside
// the timed region).
class BufferedRouting : public RoutingObserver {
 public:
  void on_decode(int n_tokens, bool generation) override {
    if (recording_) events_.push_back(wp::encode(wp::DecodeEvent{n_tokens, generation}));
  }
  bool recording() const override { return recording_; }
  void set_recording(bool on) { recording_ = on; }
  void on_routing(int layer, int n_tokens, int n_used, const int32_t* ids) override {
    events_.push_back(wp::encode(wp::RoutingEvent{
        layer, n_tokens, n_used, std::vector<int32_t>(ids, ids + size_t(n_tokens) * n_used)}));
  }
  void flush() {
    for (const json& e : events_) send(e);
    events_.clear();
  }

 private:
  std::vector<json> events_;
  bool recording_ = true;
};

struct ContextSlot {
  std::unique_ptr<BufferedRouting> routing;
  std::unique_ptr<Context> ctx;
};

class Worker {
 public:
  json handle(const json& req);

 private:
  Context& context_of(int id);
  json on_decode(const json& req);
  json on_context(const json& req);
  std::unique_ptr<Model> model_;
  std::map<int, ContextSlot> contexts_;
  int next_id_ = 1;
};

Context& Worker::context_of(int id) {
  const auto it = contexts_.find(id);
  if (it == contexts_.end()) throw EngineError(fmt::format("no context {} in this worker", id));
  return *it->second.ctx;
}

json Worker::on_context(const json& req) {
  if (!model_) throw EngineError("a context was asked for before a model was loaded");
  const auto r = wp::decode<wp::ContextRequest>(req);
  ContextSlot slot;
  if (r.routing) slot.routing = std::make_unique<BufferedRouting>();
  std::string log;
  {
    EngineLogCapture capture(EngineLogCapture::Level::kInfo);  // its KV and compute buffers
    slot.ctx = std::make_unique<Context>(*model_, r.params, slot.routing.get());
    log = bounded_log(capture.text());
  }
  const int id = next_id_++;
  const wp::ContextReply reply{id, slot.ctx->n_ctx(), slot.ctx->n_batch(), slot.ctx->n_ubatch(),
                               log};
  contexts_.emplace(id, std::move(slot));
  return wp::encode(reply);
}

json Worker::on_decode(const json& req) {
  const auto r = wp::decode<wp::DecodeRequest>(req);
  Context& ctx = context_of(r.ctx);
  BufferedRouting* routing = contexts_.at(r.ctx).routing.get();
  if (routing) routing->set_recording(r.routing);
  Context::Timing t;
  if (!r.tokens.empty()) t = ctx.decode(r.tokens, r.pos0, r.chunk, r.token_times);
  if (routing) routing->flush(), routing->set_recording(true);
  return wp::encode(
      wp::DecodeReply{t.seconds, std::move(t.token_ns), fmt::format("{:016x}", t.inputs_hash)});
}

json Worker::handle(const json& req) {
  const std::string op = wp::request_op(req);
  if (op == "hello") return hello_reply();
  if (op == "load") {
    if (model_) throw EngineError("this worker holds a model already");
    std::string log;
    {
      EngineLogCapture capture(EngineLogCapture::Level::kInfo);  // its model buffers
      model_ = std::make_unique<Model>(wp::decode<wp::LoadRequest>(req).model);
      log = bounded_log(capture.text());
    }
    return wp::encode(wp::LoadReply{model_->facts(), log});
  }
  if (op == "context") return on_context(req);
  if (op == "free") {
    contexts_.erase(wp::decode<wp::FreeRequest>(req).ctx);
    return wp::encode(wp::OkReply{});
  }
  if (op == "threads") {
    const auto r = wp::decode<wp::ThreadsRequest>(req);
    Context& ctx = context_of(r.ctx);
    ctx.set_threads(r.threads);
    return wp::encode(wp::ThreadsReply{{ctx.n_threads(), ctx.n_threads_batch()}});
  }
  if (op == "decode") return on_decode(req);
  if (op == "rewind") {
    const auto r = wp::decode<wp::RewindRequest>(req);
    context_of(r.ctx).rewind_to(r.n_kv);
    return wp::encode(wp::OkReply{});
  }
  if (op == "cached") {
    const auto r = wp::decode<wp::CachedRequest>(req);
    return wp::encode(wp::CachedReply{context_of(r.ctx).cached_tokens()});
  }
  if (op == "quantize") return quantize_reply(req);
  if (op == "expert_gemv") return expert_gemv_reply(req);
  throw wp::ProtocolError(fmt::format("unknown request '{}'", op));
}

}  // namespace

int serve_requests() {
  Worker worker;
  std::string line;
  while (std::getline(std::cin, line)) {
    json reply;
    try {
      reply = worker.handle(wp::parse_line(line, "request"));
    } catch (const UserError& e) {
      reply = wp::encode(wp::ErrorReply{"input", e.problem(), e.expected(), e.fix()});
    } catch (const std::exception& e) {
      reply = wp::encode(wp::ErrorReply{"engine", e.what(), {}, {}});
    }
    send(reply);
  }
  return 0;
}

int print_hello() {
  try {
    std::printf("%s\n", hello_reply().dump(2).c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "moesweep-worker: %s\n", e.what());
    return 2;
  }
}

}  // namespace moesweep::worker
