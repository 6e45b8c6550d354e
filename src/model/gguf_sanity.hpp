#pragma once
// The model hyperparameters the engine asserts on while loading
// (llama_model::load_hparams: block count, MTP layers, expert counts). A file
// with one of them out of range would abort the whole process (SIGABRT) in
// the middle of a sweep, or make `inspect` loop over 2^31 layers, so both
// check them first and refuse the file with the key, its value and the rule.
#include <string>

struct gguf_context;

namespace moesweep {

// Throws UserError naming `file` when a key breaks one of the engine's rules.
// `meta`: the header of the file (of part 1 for a split model).
void check_engine_hparams(const gguf_context* meta, const std::string& file);
// The string value of `key`, "" when it is absent or not a string.
std::string gguf_text_key(const gguf_context* ctx, const char* key);
// Reads the header of `path` (no tensor data) and checks it; a file that is
// not readable GGUF is left to the caller's own checks.
void check_engine_hparams(const std::string& path);

}  // namespace moesweep
