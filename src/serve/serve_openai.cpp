#include "serve/serve_openai.hpp"

#include "serve/sse_stream.hpp"

namespace moesweep {

const char* completion_path(Api api) {
  switch (api) {
    case Api::kOpenAi:
      return "/v1/completions";
    case Api::kOpenAiChat:
      return "/v1/chat/completions";
    case Api::kLlama:
      break;
  }
  return "/completion";
}

nlohmann::json openai_body(const CompletionRequest& req, const std::string& text, Api api,
                           const std::string& model) {
  nlohmann::json body = {{"max_tokens", req.n_predict},
                         {"stream", true},
                         {"stream_options", {{"include_usage", true}}},
                         {"temperature", 0},
                         // Extensions vLLM and llama-server both read: a fixed output
                         // length, and llama-server's prompt cache kept on.
                         {"ignore_eos", true},
                         {"cache_prompt", true}};
  if (!model.empty()) body["model"] = model;
  if (api == Api::kOpenAiChat)
    body["messages"] = {{{"role", "user"}, {"content", text}}};
  else
    body["prompt"] = text;
  if (req.steer_token >= 0) body["logit_bias"] = {{std::to_string(req.steer_token), 100}};
  return body;
}

int openai_event_tokens(const nlohmann::json& ev, Api api, CompletionResult& r) {
  if (ev.contains("usage") && ev["usage"].is_object()) {
    const auto& u = ev["usage"];
    r.usage_prompt_tokens = event_count(u, "prompt_tokens", -1);
    r.usage_completion_tokens = event_count(u, "completion_tokens", -1);
    if (u.contains("prompt_tokens_details") && u["prompt_tokens_details"].is_object())
      r.cache_n = event_count(u["prompt_tokens_details"], "cached_tokens", r.cache_n);
  }
  if (!ev.contains("choices") || !ev["choices"].is_array() || ev["choices"].empty()) return 0;
  const auto& c = ev["choices"][0];
  const nlohmann::json* text = nullptr;
  if (api == Api::kOpenAiChat && c.contains("delta") && c["delta"].is_object() &&
      c["delta"].contains("content"))
    text = &c["delta"]["content"];
  else if (c.contains("text"))
    text = &c["text"];
  return text && text->is_string() && !text->get<std::string>().empty() ? 1 : 0;
}

}  // namespace moesweep
