#include "serve/serve_client.hpp"

#include <fmt/format.h>
#include <httplib.h>

#include <chrono>
#include <limits>
#include <optional>
#include <regex>
#include <sstream>

#include "serve/prompt_pool.hpp"
#include "serve/serve_openai.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0, Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(t - t0).count();
}

httplib::Client make_client(const ServerAddress& a, int read_timeout_s) {
  httplib::Client cli(a.host, a.port);
  cli.set_connection_timeout(5);
  cli.set_read_timeout(read_timeout_s);
  cli.set_write_timeout(read_timeout_s);
  return cli;
}

// The server's per-request figures from the last event's `timings`.
void take_timings(const nlohmann::json& ev, CompletionResult& r) {
  if (!ev.contains("timings") || !ev["timings"].is_object()) return;
  const auto& t = ev["timings"];
  r.prompt_n = t.value("prompt_n", -1);
  r.predicted_n = t.value("predicted_n", -1);
  r.cache_n = t.value("cache_n", -1);
  r.prompt_ms = t.value("prompt_ms", -1.0);
  r.predicted_ms = t.value("predicted_ms", -1.0);
}

// Splits the SSE stream into events; calls on_event(json, arrival time).
class SseParser {
 public:
  // An event longer than this is no completion event: a server that never
  // ends one would otherwise grow the buffer for the whole request timeout.
  static constexpr size_t kMaxEventBytes = 16u << 20;
  bool overflowed() const { return buf_.size() > kMaxEventBytes; }

  template <typename F>
  void feed(const char* data, size_t len, F&& on_event) {
    if (overflowed()) return;
    buf_.append(data, len);
    size_t end;
    while ((end = buf_.find("\n\n")) != std::string::npos) {
      std::string event = buf_.substr(0, end);
      buf_.erase(0, end + 2);
      if (event.rfind("data: ", 0) != 0) continue;
      const std::string payload = event.substr(6);
      if (payload == "[DONE]") continue;
      on_event(parse_json_or_discarded(payload));
    }
  }

 private:
  std::string buf_;
};

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

// Tokens one /completion event carries (their ids kept for multi-turn).
int native_event_tokens(const nlohmann::json& ev, CompletionResult& r) {
  if (ev.contains("tokens") && ev["tokens"].is_array() && !ev["tokens"].empty()) {
    for (const auto& t : ev["tokens"]) r.tokens.push_back(t.get<int>());
    return static_cast<int>(ev["tokens"].size());
  }
  return ev.value("content", std::string()).empty() ? 0 : 1;
}

// The first model id of GET /v1/models (vLLM checks `model`); "" when none.
std::string first_model(const ServerAddress& a) {
  auto cli = make_client(a, 10);
  auto res = cli.Get("/v1/models");
  if (!res || res->status != 200) return "";
  const auto j = parse_json_or_discarded(res->body);
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

Api ServeClient::detect_api(const ServerAddress& addr, const std::string& flag) {
  if (flag != "auto") return parse_api(flag);
  auto cli = make_client(addr, 10);
  auto res = cli.Post("/tokenize", R"({"content": "a"})", "application/json");
  if (!res || res->status != 200) return Api::kOpenAi;
  const auto j = parse_json_or_discarded(res->body);
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

ServeClient::ServeClient(ServerAddress addr, int request_timeout_s, Api api)
    : addr_(std::move(addr)), timeout_s_(request_timeout_s), api_(api) {
  if (api_ != Api::kLlama) model_ = first_model(addr_);
}

void ServeClient::check_reachable() const {
  auto cli = make_client(addr_, 5);
  auto res = cli.Get("/health");
  if (res && res->status == 200) return;
  const std::string why =
      res ? fmt::format("HTTP {}", res->status) : "no answer: " + httplib::to_string(res.error());
  throw UserError(
      fmt::format("the server at {} does not answer GET /health ({})", addr_.text(), why),
      "a running llama-server or OpenAI-compatible server at --url",
      "start the server first, or check the host and port of --url");
}

std::vector<int> ServeClient::tokenize(const std::string& text) const {
  auto cli = make_client(addr_, timeout_s_);
  const nlohmann::json body = {{"content", text}, {"prompt", text}, {"add_special", false}};
  auto res = cli.Post("/tokenize", body.dump(), "application/json");
  nlohmann::json j;
  if (res && res->status == 200) j = parse_json_or_discarded(res->body);
  if (!j.is_object() || !j.contains("tokens") || !j["tokens"].is_array()) {
    throw UserError(
        fmt::format("the server at {} gave no tokens for POST /tokenize ({})", addr_.text(),
                    res ? fmt::format("HTTP {}", res->status) : httplib::to_string(res.error())),
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

namespace {

// What one streamed completion has seen so far, stamped on the client's clock.
struct StreamState {
  Api api;
  Clock::time_point t0, last{};
  CompletionResult& r;
  std::string error;  // the server's error event, a malformed event, or the timeout

  void take(const nlohmann::json& ev, Clock::time_point now) {
    if (!ev.is_object() || !error.empty()) return;
    // The server's answers are input too: a field of an unexpected type is a
    // failed request, never an exception through the HTTP library.
    try {
      if (ev.contains("error")) error = ev["error"].dump();
      const int n =
          api == Api::kLlama ? native_event_tokens(ev, r) : openai_event_tokens(ev, api, r);
      if (n > 0) {
        if (r.generated == 0)
          r.ttft_ms = ms_since(t0, now);
        else
          r.itl_ms.push_back(ms_since(last, now));
        last = now;
        r.generated += n;
      }
      take_timings(ev, r);
    } catch (const nlohmann::json::exception& e) {
      error = fmt::format("the server sent an event this client cannot read ({}): {:.200}",
                          e.what(), ev.dump());
    }
  }
};

}  // namespace

CompletionResult ServeClient::complete(const CompletionRequest& req, bool (*interrupted)()) const {
  CompletionResult r;
  r.task = req.task;
  r.api = api_name(api_);
  r.prompt_tokens = static_cast<int>(req.prompt.size());
  r.prompt_tokens_exact = exact_tokens();
  auto cli = make_client(addr_, timeout_s_);
  httplib::Request hreq;
  hreq.method = "POST";
  hreq.path = completion_path(api_);
  hreq.body = exact_tokens() ? completion_body(req).dump()
                             : openai_body(req, prompt_words_text(req.prompt), api_, model_).dump();
  hreq.set_header("Content-Type", "application/json");
  StreamState st{api_, Clock::now(), {}, r, {}};
  SseParser sse;
  hreq.content_receiver = [&](const char* data, size_t len, uint64_t, uint64_t) {
    const auto now = Clock::now();
    sse.feed(data, len, [&](const nlohmann::json& ev) { st.take(ev, now); });
    if (sse.overflowed() && st.error.empty())
      st.error = fmt::format("the server sent over {} MiB without ending an event",
                             SseParser::kMaxEventBytes >> 20);
    if (ms_since(st.t0, now) > timeout_s_ * 1000.0 && st.error.empty())
      st.error = fmt::format("no end within the request timeout of {} s", timeout_s_);
    return st.error.empty() && !(interrupted && interrupted());
  };
  httplib::Response res;
  httplib::Error err = httplib::Error::Success;
  const bool sent = cli.send(hreq, res, err);
  r.e2e_ms = ms_since(st.t0, Clock::now());
  if (!st.error.empty())
    r.error = st.error;
  else if (!sent)
    r.error = "request failed: " + httplib::to_string(err);
  else if (res.status != 200)
    r.error = fmt::format("HTTP {}", res.status);
  else if (r.generated == 0)
    r.error = "the stream carried no tokens";
  r.ok = r.error.empty();
  return r;
}

std::map<std::string, double> ServeClient::metrics() const {
  std::map<std::string, double> out;
  auto cli = make_client(addr_, 10);
  auto res = cli.Get("/metrics");
  if (!res || res->status != 200) return out;
  std::istringstream in(res->body);
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

}  // namespace moesweep
