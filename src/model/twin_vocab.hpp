#pragma once
// A servable twin: the tokenizer of a real model family copied from the
// engine tree's vocab-only GGUFs (models/ggml-vocab-*.gguf), so llama-server
// can tokenize prompts and apply a chat template. Opt-in: a twin without a
// tokenizer keeps its small vocabulary and its cache key.
#include <filesystem>
#include <string>

#include "model/twin_spec.hpp"

struct gguf_context;

namespace moesweep {

// The vocab file's family for an architecture: deepseek2 -> deepseek-llm,
// llama4 -> llama-bpe, qwen3moe -> qwen2. UserError for another arch.
std::string tokenizer_for_arch(const std::string& arch);

// $MOESWEEP_VOCAB_DIR, else the engine tree's models/ this binary was built with.
std::filesystem::path vocab_dir();

// Gives the spec a tokenizer (tokenizer_for_arch) and sets the twin's
// vocabulary to the tokenizer's size, which changes its cache key.
void make_servable(TwinSpec& spec);

// Copies the tokenizer.* keys of spec.tokenizer's vocab file into `meta`,
// and a chat template where the file has none: ChatML for every family (random weights make no use
// of the real template's tokens). Nothing for a twin without a tokenizer.
void add_twin_tokenizer(gguf_context* meta, const TwinSpec& spec);

}  // namespace moesweep
