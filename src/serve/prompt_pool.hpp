#pragma once
// Prompts made deterministically from a seed: pseudo-words tokenized by the
// server under test, then cut by token count, so a prompt of S tokens is S
// tokens exactly and the same seed gives the same prompts run after run.
#include <cstdint>
#include <string>
#include <vector>

#include "serve/serve_client.hpp"

namespace moesweep {

// Pseudo-text of `words` words from `seed` (std::mt19937_64's raw output:
// the same on every standard library).
std::string seeded_text(uint64_t seed, int words);

// Without the server's tokenizer (OpenAI APIs) a "token" is one of
// kPromptWords common English words, each a single token in the usual BPE
// vocabularies: prompt lengths are then close, not exact.
inline constexpr int kPromptWords = 128;
// The words of `ids` (each in [0, kPromptWords)) joined by spaces.
std::string prompt_words_text(const std::vector<int>& ids);

// `a` then `b`: a prompt made of a prefix and what follows it.
inline std::vector<int> concat(std::vector<int> a, const std::vector<int>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

class PromptPool {
 public:
  // Tokenizes seeded text until at least `need` tokens are held; without a
  // tokenizer (client.exact_tokens() false), seeded word ids.
  PromptPool(const ServeClient& client, uint64_t seed, size_t need);
  // Tokens [offset, offset + n); UserError past the end (a bug: need too small).
  std::vector<int> take(size_t offset, size_t n) const;
  size_t size() const { return tokens_.size(); }

 private:
  std::vector<int> tokens_;
};

}  // namespace moesweep
