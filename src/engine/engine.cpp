#include "engine/engine.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>

#include "engine/engine_util.hpp"
#include "engine/engine_worker.hpp"
#include "engine/routing_observer.hpp"
#include "engine/timing_bounds.hpp"
#include "engine/worker_launcher.hpp"
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
  // Per launcher too: under valgrind ggml picks another CPU variant (worker_launcher.hpp).
  const std::string key = worker.string() + "\n" + worker_launcher_text();
  auto it = cache.find(key);
  if (it == cache.end()) {
    EngineWorker w(worker);
    it = cache.emplace(key, w.facts()).first;
  }
  return it->second;
}

namespace {

CallDeadline point_deadline(double seconds) {
  return {seconds, "--point-timeout"};
}

}  // namespace

LoadedModel::LoadedModel(const ModelLoadParams& params, const std::filesystem::path& worker,
                         const WorkerLimits& limits)
    : params_(params), worker_path_(worker), limits_(limits) {
  start();
}

LoadedModel::~LoadedModel() = default;

void LoadedModel::start() {
  worker_ = std::make_unique<EngineWorker>(worker_path_, limits_.stop);
  const nlohmann::json reply =
      worker_->call(wp::encode(wp::LoadRequest{params_}), point_deadline(limits_.timeout_s));
  try {
    wp::LoadReply r = wp::decode<wp::LoadReply>(reply);
    facts_ = std::move(r.facts);
    load_log_ = std::move(r.engine_log);
  } catch (const wp::ProtocolError& e) {
    throw EngineError(fmt::format("the engine worker's model facts are broken: {}", e.what()));
  }
  // Its facts name the model everywhere (meta.json, its hash): they must be
  // of the file we asked for, not of one it chose.
  if (!same_file(facts_.path, params_.path))
    throw EngineError(fmt::format(
        "the engine worker says it loaded '{}', not the file it was asked to load, '{}'",
        facts_.path.substr(0, 300), params_.path));
  facts_.path = params_.path;
  ++generation_;
}

void LoadedModel::restart() {
  worker_.reset();  // reaps what is left of the old one first
  start();
}

bool LoadedModel::running() const {
  return worker_ && worker_->pid() > 0;
}

nlohmann::json LoadedModel::request(
    const nlohmann::json& req, const std::function<void(const nlohmann::json&)>& events) const {
  if (!running()) throw EngineCrash("the engine worker is not running", "stopped", {});
  return worker_->call(req, point_deadline(limits_.timeout_s), events);
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
  const nlohmann::json reply =
      model_.request(wp::encode(wp::ContextRequest{routing != nullptr, params}));
  wp::ContextReply r = wp::decode<wp::ContextReply>(reply);
  id_ = r.ctx;
  applied_.n_ctx = r.n_ctx;
  applied_.n_batch = r.n_batch;
  applied_.n_ubatch = r.n_ubatch;
  read_applied_from_log(r.engine_log, applied_);
  creation_log_ = std::move(r.engine_log);
}

LiveContext::~LiveContext() {
  if (model_.generation() != generation_) return;  // gone with its worker
  try {
    model_.request(wp::encode(wp::FreeRequest{id_}));  // a hung worker is ended at the deadline
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
void replay(RoutingObserver& routing, const nlohmann::json& line) {
  const wp::WorkerEvent ev = wp::event_from(line);
  if (ev.routing)
    routing.on_routing(ev.route.layer, ev.route.n_tokens, ev.route.n_used, ev.route.ids.data());
  else
    routing.on_decode(ev.decode.n_tokens, ev.decode.generation);
}

}  // namespace

AppliedThreads LiveContext::set_threads(const ThreadSettings& threads) {
  check_alive(model_, generation_);
  return wp::decode<wp::ThreadsReply>(model_.request(wp::encode(wp::ThreadsRequest{id_, threads})))
      .applied;
}

namespace {

// Why the worker's token times cannot be those of `tokens` tokens in
// `seconds` ("" when they can).
std::string implausible_token_times(const std::vector<int64_t>& ns, size_t tokens, double seconds) {
  if (ns.size() != tokens)
    return fmt::format("the engine worker gave {} token times for {} generated tokens", ns.size(),
                       tokens);
  double sum = 0;
  for (int64_t t : ns) sum += static_cast<double>(t) * 1e-9;
  if (sum > seconds * (1 + 1e-6) + 1e-6)
    return fmt::format(
        "the engine worker's token times add up to {:.6f} s, more than the {:.6f} s "
        "of their call",
        sum, seconds);
  return "";
}

}  // namespace

DecodeResult LiveContext::decode(const std::vector<int32_t>& tokens, int pos0, int chunk,
                                 const DecodeOptions& options) {
  check_alive(model_, generation_);
  WorkerProcess::EventSink events;
  if (routing_) events = [this](const nlohmann::json& ev) { replay(*routing_, ev); };
  wp::DecodeRequest req{id_, tokens, pos0, chunk};
  req.token_times = options.token_times && chunk == 1;
  req.routing = options.routing;
  const auto t0 = std::chrono::steady_clock::now();
  const nlohmann::json reply =
      model_.request(wp::encode(req), events);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  wp::DecodeReply r = wp::decode<wp::DecodeReply>(reply);
  // The engine computes micro-batches of at most n_ubatch tokens (one for a generation step).
  const int ubatch = applied_.n_ubatch > 0 ? applied_.n_ubatch : params_.n_ubatch;
  const int per_step = chunk <= 1 ? 1 : std::min(chunk, ubatch);
  std::string why = implausible_time("the engine worker's decode", r.seconds,
                                     static_cast<int64_t>(tokens.size()), per_step, wall);
  if (why.empty() && req.token_times)
    why = implausible_token_times(r.token_ns, tokens.size(), r.seconds);
  if (!why.empty()) throw EngineError(why);
  return {r.seconds, std::move(r.token_ns), std::move(r.inputs)};
}

double LiveContext::prefill(const std::vector<int32_t>& tokens, int pos0) {
  return decode(tokens, pos0, params_.n_batch, {}).seconds;
}

double LiveContext::generate(const std::vector<int32_t>& tokens, int pos0) {
  return decode(tokens, pos0, 1, {}).seconds;
}

DecodeResult LiveContext::generate(const std::vector<int32_t>& tokens, int pos0,
                                   const DecodeOptions& options) {
  return decode(tokens, pos0, 1, options);
}

void LiveContext::rewind_to(int n_kv) {
  check_alive(model_, generation_);
  model_.request(wp::encode(wp::RewindRequest{id_, n_kv}));
}

int LiveContext::cached_tokens() const {
  check_alive(model_, generation_);
  return wp::decode<wp::CachedReply>(model_.request(wp::encode(wp::CachedRequest{id_}))).n;
}

std::string quantize_in_worker(const std::string& in, const std::string& out, int ftype,
                               int n_threads, const std::filesystem::path& worker) {
  EngineWorker w(worker);
  // Quantizing reads the input once and writes the output once: ten minutes,
  // plus a second per 5 MB read, is far beyond any disk and CPU of today.
  std::error_code ec;
  const uintmax_t bytes = std::filesystem::file_size(in, ec);
  const double limit = 600 + (ec ? 0.0 : static_cast<double>(bytes) / 5e6);
  const nlohmann::json reply =
      w.call(wp::encode(wp::QuantizeRequest{in, out, ftype, n_threads}),
             {limit, "the deadline of quantizing: 600 s plus 1 s per 5 MB"});
  return wp::decode<wp::QuantizeReply>(reply).log;
}

ExpertGemvProbe::ExpertGemvProbe(const std::filesystem::path& worker)
    : worker_(std::make_unique<EngineWorker>(worker)) {}
ExpertGemvProbe::~ExpertGemvProbe() = default;

ExpertGemvPoint ExpertGemvProbe::measure(const ExpertGemvShape& shape, int64_t experts, int threads,
                                         double seconds) {
  const wp::ExpertGemvRequest request{shape, experts, threads,
                                      std::max<int64_t>(1, std::llround(seconds * 1e3))};
  const nlohmann::json reply =
      worker_->call(wp::encode(request),
                    {std::max(60.0, seconds * 20), "the expert GEMV's deadline: 20x its time"});
  ExpertGemvPoint p = wp::decode<wp::ExpertGemvReply>(reply).point;
  p.threads = threads;
  return p;
}

}  // namespace moesweep
