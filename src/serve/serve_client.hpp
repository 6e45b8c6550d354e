#pragma once
// The benchmark's HTTP client (cpp-httplib): one streaming completion at a
// time per client, every server-sent event stamped on the client's clock, so
// TTFT and inter-token latency are measured here and not taken on trust.
// Every exchange is bounded (serve/http_exchange.hpp): a byte cap, a
// deadline, and a stop within ~0.1 s once `interrupted()` says so.
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace moesweep {

struct ServerAddress {
  std::string host = "127.0.0.1";
  int port = 0;
  std::string text() const;  // http://host:port
};

// "http://host:port" -> address; UserError for anything else (https, a path).
ServerAddress parse_server_url(const std::string& url);

// The endpoints spoken: llama-server's native /completion (token-id prompts,
// exact lengths through /tokenize), or the OpenAI-compatible /v1/completions
// or /v1/chat/completions that vLLM, ik_llama and llama-server all serve
// (text prompts: lengths are approximate, see PromptPool).
enum class Api { kLlama, kOpenAi, kOpenAiChat };
const char* api_name(Api api);
// "llama", "openai", "openai-chat"; "auto" is resolved by ServeClient::detect_api.
Api parse_api(const std::string& name);

struct CompletionRequest {
  std::string task;          // label in the table: "cold", "warm 3", "turn 2"
  std::vector<int> prompt;   // token ids: lengths are exact by construction
  int n_predict = 32;        // with ignore_eos: exactly this many tokens
  bool want_tokens = false;  // return the generated ids (multi-turn history)
  int steer_token = -1;      // >= 0: logit_bias makes this the greedy pick (twins)
  bool token_times = false;  // keep every token's arrival (CompletionResult::token_ms)
};

struct CompletionResult {
  std::string task;
  bool ok = false;
  std::string error;
  bool timed_out = false;  // no end within the request timeout (a hung server, if it repeats)
  // The server ended the stream before the tokens asked for and said why
  // (stop_type eos, finish_reason stop, ...; "none given"): "" otherwise.
  std::string stop_reason;
  std::string api = "llama";
  int prompt_tokens = 0;            // sent (OpenAI APIs: words, an approximation)
  bool prompt_tokens_exact = true;  // false: prompt_tokens counts words, not tokens
  int generated = 0;                // tokens seen in the stream
  std::vector<int> tokens;
  double start_s = 0;  // since the workload's start
  double ttft_ms = 0, e2e_ms = 0;
  std::vector<double> itl_ms;
  std::vector<double> token_ms;  // token_times: each token's arrival since the request was sent
  // The server's own `timings` (-1: not reported).
  int prompt_n = -1, predicted_n = -1, cache_n = -1;
  double prompt_ms = -1, predicted_ms = -1;
  // The OpenAI `usage` of the last event (stream_options.include_usage), -1: none.
  int usage_prompt_tokens = -1, usage_completion_tokens = -1;
  nlohmann::json to_json() const;
};

class ServeClient {
 public:
  ServeClient(ServerAddress addr, int request_timeout_s, Api api = Api::kLlama,
              bool (*interrupted)() = nullptr);
  // "auto": llama when POST /tokenize answers with tokens, else openai.
  static Api detect_api(const ServerAddress& addr, const std::string& flag,
                        bool (*interrupted)() = nullptr);
  Api api() const { return api_; }
  bool exact_tokens() const { return api_ == Api::kLlama; }
  // GET /health 200 within a few seconds, else UserError (exit 2) naming the URL.
  void check_reachable() const;
  // The same, but while the server answers 503 (llama-server loading its
  // model) asked again until `loading_wait` has passed; `on_loading` is
  // called once when the first 503 comes.
  static void wait_healthy(const ServerAddress& addr, std::chrono::seconds loading_wait,
                           bool (*interrupted)() = nullptr,
                           const std::function<void()>& on_loading = {});
  std::vector<int> tokenize(const std::string& text) const;
  // One streamed completion (/completion, or /v1/completions or
  // /v1/chat/completions); never throws for a failed request (ok = false).
  // `interrupted` cuts the exchange short (Ctrl-C, or the end of the grace
  // an open-loop run gives requests in flight).
  CompletionResult complete(const CompletionRequest& req,
                            const std::function<bool()>& interrupted) const;
  // GET /metrics as name -> value (llamacpp:prompt_tokens_total ...); empty
  // when the server has none.
  std::map<std::string, double> metrics() const;
  // Tokens one slot holds, from GET /props (llama-server's
  // default_generation_settings.n_ctx); nullopt when the server does not say.
  std::optional<int64_t> slot_context() const;
  const ServerAddress& address() const { return addr_; }

 private:
  ServerAddress addr_;
  int timeout_s_;
  Api api_;
  bool (*interrupted_)() = nullptr;
  std::string model_;  // OpenAI APIs: the first id of GET /v1/models
};

}  // namespace moesweep
