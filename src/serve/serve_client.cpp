#include "serve/serve_client.hpp"

#include <fmt/format.h>

#include <chrono>
#include <limits>
#include <optional>
#include <regex>
#include <sstream>
#include <thread>

#include "serve/http_exchange.hpp"
#include "serve/prompt_pool.hpp"
#include "serve/serve_openai.hpp"
#include "serve/sse_stream.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0, Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(t - t0).count();
}

// The caps of the short exchanges: far above what a server answers.
constexpr size_t kSmallAnswer = 1u << 20;      // /health, /v1/models, /props, auto-detection
constexpr size_t kMetricsAnswer = 4u << 20;    // /metrics
constexpr size_t kTokenizeAnswer = 64u << 20;  // /tokenize of a 262144-token text: ~3 MiB
constexpr std::chrono::seconds kShortDeadline{10};
// A completion stream: a base plus a generous share per token asked for.
constexpr size_t kStreamBase = 64u << 20;
constexpr size_t kStreamPerToken = 64u << 10;

HttpLimits limits(size_t bytes, std::chrono::milliseconds deadline,
                  std::function<bool()> interrupted) {
  return {bytes, deadline, std::move(interrupted)};
}

// An exchange the run cannot go on without (the health check, a prompt's
// tokens), cut short by Ctrl-C: the run stops there (serve-bench finishes it
// "interrupted"). The optional ones (/metrics, /props) just come back empty.
void stop_if_interrupted(const HttpAnswer& a) {
  if (a.stopped == "interrupted") throw UserError("interrupted", "", "", exit_code::kInterrupted);
}

nlohmann::json completion_body(const CompletionRequest& req) {
  nlohmann::json body = {{"prompt", req.prompt},
                         {"n_predict", req.n_predict},
                         {"ignore_eos", true},
                         {"stream", true},
                         {"cache_prompt", true},
                         {"temperature", 0},
                         {"return_tokens", req.want_tokens}};
  // A twin's random weights emit arbitrary bytes, which llama-server's output
  // parser can reject (HTTP 500); one steered token keeps the text valid while
  // every token still costs a full forward pass.
  if (req.steer_token >= 0) body["logit_bias"] = {{req.steer_token, 100}};
  return body;
}

// The first model id of GET /v1/models (vLLM checks `model`); "" when none.
std::string first_model(const ServerAddress& a, bool (*interrupted)()) {
  const HttpAnswer res = http_exchange(a, {"GET", "/v1/models", "", {}},
                                       limits(kSmallAnswer, kShortDeadline, interrupted));
  if (!res.stopped.empty() || res.status != 200) return "";
  const auto j = parse_json_or_discarded(res.body);
  if (!j.is_object() || !j.contains("data") || !j["data"].is_array() || j["data"].empty() ||
      !j["data"][0].is_object() || !j["data"][0].contains("id") || !j["data"][0]["id"].is_string())
    return "";
  return j["data"][0]["id"].get<std::string>();
}

// One token id of a /tokenize answer: a number, or {"id": number} (with_pieces).
std::optional<int> token_id(const nlohmann::json& t) {
  const nlohmann::json* id = t.is_object() && t.contains("id") ? &t["id"] : &t;
  if (!id->is_number_integer()) return std::nullopt;
  const int64_t v = id->get<int64_t>();
  if (v < 0 || v > std::numeric_limits<int32_t>::max()) return std::nullopt;
  return static_cast<int>(v);
}

// Why a completion is no good answer ("" when it is): the stream's own
// failure, the exchange's (the request timeout named as such), the HTTP
// status, or a stream that did not end as its protocol ends a complete one.
std::string completion_failure(const HttpAnswer& res, CompletionStream& stream, CompletionResult& r,
                               int timeout_s) {
  if (!stream.error().empty()) return stream.error();
  if ((r.timed_out = res.stopped.rfind("no complete answer", 0) == 0))
    return fmt::format(
        "no end within the request timeout of {} s (--request-timeout), after {} "
        "tokens",
        timeout_s, r.generated);
  if (!res.stopped.empty()) return res.stopped;
  if (!res.answered) return "request failed: " + res.what();
  if (res.status != 200) return fmt::format("HTTP {}", res.status);
  std::string why = stream.finish();
  // The transport's own word when the connection broke under the stream.
  if (!why.empty() && !res.error.empty()) why += fmt::format(" (the connection: {})", res.error);
  return why;
}

}  // namespace

const char* api_name(Api api) {
  switch (api) {
    case Api::kOpenAi:
      return "openai";
    case Api::kOpenAiChat:
      return "openai-chat";
    case Api::kLlama:
      break;
  }
  return "llama";
}

Api parse_api(const std::string& name) {
  for (Api a : {Api::kLlama, Api::kOpenAi, Api::kOpenAiChat})
    if (name == api_name(a)) return a;
  throw UserError(fmt::format("--api '{}' is not an API serve-bench speaks", name),
                  "auto, llama (/completion), openai (/v1/completions) or openai-chat "
                  "(/v1/chat/completions)",
                  "pick one of those; auto tries /tokenize and falls back to openai");
}

Api ServeClient::detect_api(const ServerAddress& addr, const std::string& flag,
                            bool (*interrupted)()) {
  if (flag != "auto") return parse_api(flag);
  const HttpAnswer res = http_exchange(addr, {"POST", "/tokenize", R"({"content": "a"})", {}},
                                       limits(kSmallAnswer, kShortDeadline, interrupted));
  if (!res.stopped.empty() || res.status != 200) return Api::kOpenAi;
  const auto j = parse_json_or_discarded(res.body);
  return j.is_object() && j.contains("tokens") ? Api::kLlama : Api::kOpenAi;
}

std::string ServerAddress::text() const {
  return fmt::format("http://{}:{}", host, port);
}

ServerAddress parse_server_url(const std::string& url) {
  static const std::regex re(R"(^http://([A-Za-z0-9.\-]+|\[[0-9a-fA-F:]+\]):([0-9]{1,5})/?$)");
  std::smatch m;
  if (!std::regex_match(url, m, re) || std::stoi(m[2]) < 1 || std::stoi(m[2]) > 65535) {
    throw UserError(fmt::format("--url '{}' is not a server address", url),
                    "http://HOST:PORT (no path, no https), e.g. http://127.0.0.1:8080",
                    "give the address the server listens on");
  }
  return {m[1], std::stoi(m[2])};
}

nlohmann::json CompletionResult::to_json() const {
  return {{"task", task},
          {"api", api},
          {"prompt_tokens_exact", prompt_tokens_exact},
          {"usage_prompt_tokens", usage_prompt_tokens},
          {"usage_completion_tokens", usage_completion_tokens},
          {"ok", ok},
          {"error", error},
          {"stop_reason", stop_reason},
          {"prompt_tokens", prompt_tokens},
          {"generated", generated},
          {"start_s", start_s},
          {"ttft_ms", ttft_ms},
          {"e2e_ms", e2e_ms},
          {"itl_ms", itl_ms},
          {"prompt_n", prompt_n},
          {"prompt_ms", prompt_ms},
          {"predicted_n", predicted_n},
          {"predicted_ms", predicted_ms},
          {"cache_n", cache_n}};
}

ServeClient::ServeClient(ServerAddress addr, int request_timeout_s, Api api, bool (*interrupted)())
    : addr_(std::move(addr)), timeout_s_(request_timeout_s), api_(api), interrupted_(interrupted) {
  if (api_ != Api::kLlama) model_ = first_model(addr_, interrupted_);
}

void ServeClient::check_reachable() const {
  wait_healthy(addr_, std::chrono::seconds(0), interrupted_);
}

void ServeClient::wait_healthy(const ServerAddress& addr, std::chrono::seconds loading_wait,
                               bool (*interrupted)(), const std::function<void()>& on_loading) {
  const auto deadline = Clock::now() + loading_wait;
  for (bool told = false;; std::this_thread::sleep_for(std::chrono::milliseconds(250))) {
    const HttpAnswer res =
        http_exchange(addr, {"GET", "/health", "", {}},
                      limits(kSmallAnswer, std::chrono::seconds(5), interrupted));
    stop_if_interrupted(res);
    if (res.stopped.empty() && res.status == 200) return;
    // 503 is llama-server loading its model: it has bound its port first.
    const bool loading = res.stopped.empty() && res.status == 503;
    if (!loading || Clock::now() >= deadline) {
      throw UserError(fmt::format("the server at {} does not answer GET /health ({}{})",
                                  addr.text(), res.what(),
                                  loading && loading_wait.count() > 0
                                      ? fmt::format(", still after {} s", loading_wait.count())
                                      : ""),
                      "a running llama-server or OpenAI-compatible server at --url",
                      loading ? "raise --ready-timeout if it is still loading a large model"
                              : "start the server first, or check the host and port of --url");
    }
    if (!told && on_loading) on_loading();
    told = true;
  }
}

std::vector<int> ServeClient::tokenize(const std::string& text) const {
  const nlohmann::json body = {{"content", text}, {"prompt", text}, {"add_special", false}};
  const HttpAnswer res =
      http_exchange(addr_, {"POST", "/tokenize", body.dump(), {}},
                    limits(kTokenizeAnswer, std::chrono::seconds(timeout_s_), interrupted_));
  stop_if_interrupted(res);
  nlohmann::json j;
  if (res.stopped.empty() && res.status == 200) j = parse_json_or_discarded(res.body);
  if (!j.is_object() || !j.contains("tokens") || !j["tokens"].is_array()) {
    throw UserError(fmt::format("the server at {} gave no tokens for POST /tokenize ({})",
                                addr_.text(), res.what()),
                    "a llama-server-compatible /tokenize endpoint (prompts are token-exact)",
                    "benchmark a llama-server or ik_llama server");
  }
  std::vector<int> out;
  for (const auto& t : j["tokens"]) {
    const std::optional<int> id = token_id(t);
    if (!id) {
      throw UserError(
          fmt::format("the server at {} answered POST /tokenize with a token that is no id: {:.80}",
                      addr_.text(), t.dump()),
          "token ids from 0 to 2^31-1, as numbers or {\"id\": N}",
          "benchmark a llama-server or ik_llama server, or use --api openai");
    }
    out.push_back(*id);
  }
  if (out.empty() && !text.empty()) {
    throw UserError(fmt::format("the server at {} tokenized {} characters into no tokens",
                                addr_.text(), text.size()),
                    "at least one token for non-empty text",
                    "check the model the server loaded, or use --api openai");
  }
  return out;
}

CompletionResult ServeClient::complete(const CompletionRequest& req,
                                       const std::function<bool()>& interrupted) const {
  CompletionResult r;
  r.task = req.task;
  r.api = api_name(api_);
  r.prompt_tokens = static_cast<int>(req.prompt.size());
  r.prompt_tokens_exact = exact_tokens();
  HttpRequest hreq;
  hreq.method = "POST";
  hreq.path = completion_path(api_);
  hreq.body = exact_tokens() ? completion_body(req).dump()
                             : openai_body(req, prompt_words_text(req.prompt), api_, model_).dump();
  CompletionStream stream(api_, req.n_predict, r, req.token_times);
  hreq.on_body = [&stream](const char* data, size_t len) { return stream.feed(data, len); };
  const auto deadline = std::chrono::seconds(timeout_s_);
  const size_t cap =
      kStreamBase + static_cast<size_t>(std::max(req.n_predict, 0)) * kStreamPerToken;
  const HttpAnswer res = http_exchange(addr_, hreq, limits(cap, deadline, interrupted));
  r.e2e_ms = ms_since(stream.started(), Clock::now());
  r.error = completion_failure(res, stream, r, timeout_s_);
  r.ok = r.error.empty();
  return r;
}

std::map<std::string, double> ServeClient::metrics() const {
  std::map<std::string, double> out;
  const HttpAnswer res = http_exchange(addr_, {"GET", "/metrics", "", {}},
                                       limits(kMetricsAnswer, kShortDeadline, interrupted_));
  if (!res.stopped.empty() || res.status != 200) return out;
  std::istringstream in(res.body);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t sp = line.rfind(' ');
    if (sp == std::string::npos) continue;
    try {
      out[line.substr(0, sp)] = std::stod(line.substr(sp + 1));
    } catch (const std::exception&) {  // a line that is not "name value": not a counter
    }
  }
  return out;
}

std::optional<int64_t> ServeClient::slot_context() const {
  const HttpAnswer res = http_exchange(addr_, {"GET", "/props", "", {}},
                                       limits(kSmallAnswer, kShortDeadline, interrupted_));
  if (!res.stopped.empty() || res.status != 200) return std::nullopt;
  const nlohmann::json j = parse_json_or_discarded(res.body);
  const nlohmann::json::json_pointer n_ctx("/default_generation_settings/n_ctx");
  if (!j.is_object() || !j.contains(n_ctx) || !j.at(n_ctx).is_number_integer()) return std::nullopt;
  const int64_t v = j.at(n_ctx).get<int64_t>();
  return v > 0 ? std::optional<int64_t>(v) : std::nullopt;
}

}  // namespace moesweep
