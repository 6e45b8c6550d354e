#include "engine/engine.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>

#include "engine/engine_worker.hpp"
#include "engine/routing_observer.hpp"
#include "engine/worker_protocol.hpp"
#include "util/error.hpp"

namespace moesweep {

namespace wp = worker_protocol;

std::filesystem::path default_worker_path() {
  if (const char* env = std::getenv("MOESWEEP_WORKER"); env && *env) return env;
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return (ec ? std::filesystem::path(".") : self.parent_path()) / "moesweep-worker";
}

const EngineFacts& engine_facts(const std::filesystem::path& worker) {
  static std::mutex mutex;
  static std::map<std::string, EngineFacts> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(worker.string());
  if (it == cache.end()) {
    EngineWorker w(worker);
    it = cache.emplace(worker.string(), w.facts()).first;
  }
  return it->second;
}

LoadedModel::LoadedModel(const ModelLoadParams& params, const std::filesystem::path& worker)
    : params_(params), worker_path_(worker) {
  start();
}

LoadedModel::~LoadedModel() = default;

void LoadedModel::start() {
  worker_ = std::make_unique<EngineWorker>(worker_path_);
  const nlohmann::json reply = worker_->call({{"op", "load"}, {"model", wp::to_json(params_)}});
  try {
    facts_ = wp::model_facts_from(reply.at("facts"));
    load_log_ = wp::string_field(reply, "engine_log", "load reply", size_t{1} << 20);
  } catch (const std::exception& e) {
    throw EngineError(fmt::format("the engine worker's model facts are broken: {}", e.what()));
  }
  ++generation_;
}

void LoadedModel::restart() {
  worker_.reset();  // reaps what is left of the old one first
  start();
}

const EngineFacts& LoadedModel::engine() const {
  return worker_->facts();
}

int LoadedModel::pid() const {
  return worker_->pid();
}

LiveContext::LiveContext(const LoadedModel& model, const ContextParams& params,
                         RoutingObserver* routing)
    : model_(model), params_(params), routing_(routing), generation_(model.generation()) {
  const nlohmann::json reply = model_.worker().call(
      {{"op", "context"}, {"context", wp::to_json(params)}, {"routing", routing != nullptr}});
  id_ = static_cast<int>(wp::int_field(reply, "ctx", 1, 1 << 30, "context reply"));
  n_ctx_ = static_cast<int>(wp::int_field(reply, "n_ctx", 1, wp::kMaxTokens, "context reply"));
  creation_log_ = wp::string_field(reply, "engine_log", "context reply", size_t{1} << 20);
}

LiveContext::~LiveContext() {
  if (model_.generation() != generation_) return;  // gone with its worker
  try {
    model_.worker().call({{"op", "free"}, {"ctx", id_}}, 60);
  } catch (const std::exception&) {
    // The worker is ending or gone: the context goes with it.
  }
}

namespace {

void check_alive(const LoadedModel& model, int generation) {
  if (model.generation() != generation)
    throw EngineCrash("this context was lost with its engine worker", "restarted", {});
}

// Replays one routing or decode event of the worker to the observer.
void replay(RoutingObserver& routing, const nlohmann::json& ev) {
  const char* what = "a routing event";
  const std::string kind = wp::string_field(ev, "event", what, 16);
  const int n_tokens = static_cast<int>(wp::int_field(ev, "n_tokens", 0, wp::kMaxTokens, what));
  if (kind == "decode") {
    routing.on_decode(n_tokens, wp::bool_field(ev, "generation", what));
    return;
  }
  if (kind != "routing") throw wp::ProtocolError(fmt::format("unknown event '{}'", kind));
  const int layer = static_cast<int>(wp::int_field(ev, "layer", 0, 4095, what));
  const int n_used = static_cast<int>(wp::int_field(ev, "n_used", 1, 1024, what));
  const nlohmann::json& ids = ev.at("ids");
  if (!ids.is_array() || ids.size() != static_cast<size_t>(n_tokens) * n_used)
    throw wp::ProtocolError("a routing event's ids do not match n_tokens x n_used");
  std::vector<int32_t> v;
  v.reserve(ids.size());
  for (const auto& id : ids) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() >= 1 << 20)
      throw wp::ProtocolError("a routing event holds an expert id out of range");
    v.push_back(id.get<int32_t>());
  }
  routing.on_routing(layer, n_tokens, n_used, v.data());
}

}  // namespace

void LiveContext::set_threads(const ThreadSettings& threads) {
  check_alive(model_, generation_);
  model_.worker().call({{"op", "threads"}, {"ctx", id_}, {"threads", wp::to_json(threads)}},
                       timeout_s_);
}

double LiveContext::decode(const std::vector<int32_t>& tokens, int pos0, int chunk) {
  check_alive(model_, generation_);
  WorkerProcess::EventSink events;
  if (routing_) events = [this](const nlohmann::json& ev) { replay(*routing_, ev); };
  const nlohmann::json reply = model_.worker().call(
      {{"op", "decode"}, {"ctx", id_}, {"tokens", tokens}, {"pos0", pos0}, {"chunk", chunk}},
      timeout_s_, events);
  const double s = wp::number_field(reply, "seconds", "decode reply");
  if (!(s > 0) || s > 1e9) throw EngineError(fmt::format("the worker timed a decode at {} s", s));
  return s;
}

double LiveContext::prefill(const std::vector<int32_t>& tokens, int pos0) {
  return decode(tokens, pos0, params_.n_batch);
}

double LiveContext::generate(const std::vector<int32_t>& tokens, int pos0) {
  return decode(tokens, pos0, 1);
}

void LiveContext::rewind_to(int n_kv) {
  check_alive(model_, generation_);
  model_.worker().call({{"op", "rewind"}, {"ctx", id_}, {"n_kv", n_kv}}, timeout_s_);
}

int LiveContext::cached_tokens() const {
  check_alive(model_, generation_);
  const nlohmann::json reply = model_.worker().call({{"op", "cached"}, {"ctx", id_}}, timeout_s_);
  return static_cast<int>(wp::int_field(reply, "n", 0, wp::kMaxTokens, "cached reply"));
}

std::string quantize_in_worker(const std::string& in, const std::string& out, int ftype,
                               int n_threads, const std::filesystem::path& worker) {
  EngineWorker w(worker);
  const nlohmann::json reply = w.call(
      {{"op", "quantize"}, {"in", in}, {"out", out}, {"ftype", ftype}, {"n_threads", n_threads}});
  return wp::string_field(reply, "log", "quantize reply", size_t{16} << 20);
}

ExpertGemvProbe::ExpertGemvProbe(const std::filesystem::path& worker)
    : worker_(std::make_unique<EngineWorker>(worker)) {}
ExpertGemvProbe::~ExpertGemvProbe() = default;

ExpertGemvPoint ExpertGemvProbe::measure(const ExpertGemvShape& shape, int64_t experts, int threads,
                                         double seconds) {
  const nlohmann::json reply = worker_->call({{"op", "expert_gemv"},
                                              {"type", shape.type},
                                              {"hidden", shape.hidden},
                                              {"rows", shape.rows},
                                              {"used", shape.used},
                                              {"layers", shape.layers},
                                              {"experts", experts},
                                              {"threads", threads},
                                              {"millis", static_cast<int64_t>(seconds * 1e3)}},
                                             std::max(60.0, seconds * 20));
  const char* what = "expert_gemv reply";
  ExpertGemvPoint p;
  p.pool_bytes = static_cast<uint64_t>(wp::int_field(reply, "pool_bytes", 0, INT64_MAX, what));
  p.expert_bytes = static_cast<uint64_t>(wp::int_field(reply, "expert_bytes", 0, INT64_MAX, what));
  p.threads = threads;
  p.gbps = wp::number_field(reply, "gbps", what);
  p.tokens_per_s = wp::number_field(reply, "tokens_per_s", what);
  return p;
}

}  // namespace moesweep
