#pragma once
// The OpenAI-compatible side of ServeClient: request bodies for
// /v1/completions and /v1/chat/completions and the reading of their stream
// events (choices[0].text or .delta.content, `usage` from
// stream_options.include_usage, llama-server's extra `timings`).
#include <nlohmann/json.hpp>

#include <string>

#include "serve/serve_client.hpp"

namespace moesweep {

const char* completion_path(Api api);
// `text`: the prompt as words (prompt_words_text of req.prompt).
nlohmann::json openai_body(const CompletionRequest& req, const std::string& text, Api api,
                           const std::string& model);
// Tokens one event carries (a chunk with text counts as one) ; records the
// event's usage and timings in `r`.
int openai_event_tokens(const nlohmann::json& ev, Api api, CompletionResult& r);

}  // namespace moesweep
