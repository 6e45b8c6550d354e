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

class PromptPool {
 public:
  // Tokenizes seeded text until at least `need` tokens are held.
  PromptPool(const ServeClient& client, uint64_t seed, size_t need);
  // Tokens [offset, offset + n); UserError past the end (a bug: need too small).
  std::vector<int> take(size_t offset, size_t n) const;
  size_t size() const { return tokens_.size(); }

 private:
  std::vector<int> tokens_;
};

}  // namespace moesweep
