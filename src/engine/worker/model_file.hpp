#pragma once
// What both engine kinds' model loaders (llama_cpp/, ik_llama/) check and read
// the same way: the file before the engine sees it, and metadata strings.
#include <string>

#include "engine/engine_types.hpp"

struct llama_model;

namespace moesweep::worker {

// UserError (exit 2) for a missing file or one that is not GGUF, before the
// engine gets to abort on it.
void check_gguf_file(const std::string& path);
// A metadata value of a loaded model as text ("" when the key is absent).
std::string model_meta(const llama_model* model, const std::string& key);

// What both llama.h spell alike of a loaded model's facts (path, description,
// architecture, size, parameters); each kind adds layers, vocabulary, context.
ModelFacts model_facts_of(const llama_model* model, const std::string& path);

}  // namespace moesweep::worker
