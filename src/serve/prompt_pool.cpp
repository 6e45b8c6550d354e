#include "serve/prompt_pool.hpp"

#include <fmt/format.h>

#include <random>

#include "util/error.hpp"

namespace moesweep {

std::string seeded_text(uint64_t seed, int words) {
  static const char* const kSyllables[] = {"ka", "lo", "mi", "ne", "ru", "sa", "te", "vo",
                                           "zi", "pa", "do", "gu", "he", "jo", "bi", "fe"};
  std::mt19937_64 rng(seed);
  std::string out;
  for (int w = 0; w < words; ++w) {
    const uint64_t r = rng();
    const int n = 1 + static_cast<int>(r % 3);
    if (w > 0) out += (r >> 8) % 13 == 0 ? ".\n" : " ";
    for (int s = 0; s < n; ++s) out += kSyllables[(r >> (16 + 4 * s)) & 15];
  }
  return out;
}

std::string prompt_words_text(const std::vector<int>& ids) {
  static const char* const kWords[kPromptWords] = {
      "the",     "of",    "and",   "to",    "in",    "is",    "that",  "for",   "it",      "as",
      "was",     "with",  "be",    "by",    "on",    "not",   "he",    "this",  "are",     "or",
      "his",     "from",  "at",    "which", "but",   "have",  "an",    "had",   "they",    "you",
      "were",    "their", "one",   "all",   "we",    "can",   "her",   "has",   "there",   "been",
      "if",      "more",  "when",  "will",  "would", "who",   "so",    "no",    "she",     "other",
      "its",     "may",   "these", "what",  "them",  "than",  "some",  "him",   "time",    "into",
      "only",    "do",    "out",   "new",   "two",   "first", "also",  "any",   "my",      "now",
      "such",    "like",  "our",   "over",  "man",   "me",    "even",  "most",  "made",    "after",
      "many",    "then",  "could", "years", "said",  "must",  "way",   "well",  "down",    "back",
      "used",    "each",  "work",  "here",  "where", "long",  "just",  "know",  "through", "should",
      "because", "good",  "much",  "very",  "those", "own",   "world", "still", "life",    "same",
      "state",   "both",  "under", "never", "day",   "last",  "how",   "while", "again",   "case",
      "might",   "great", "since", "part",  "water", "house", "point", "small"};
  std::string out;
  for (int id : ids) {
    if (!out.empty()) out += ' ';
    out += kWords[static_cast<size_t>(id) % kPromptWords];
  }
  return out;
}

PromptPool::PromptPool(const ServeClient& client, uint64_t seed, size_t need) {
  if (!client.exact_tokens()) {
    std::mt19937_64 rng(seed);
    for (size_t i = 0; i < need; ++i) tokens_.push_back(static_cast<int>(rng() % kPromptWords));
    return;
  }
  // About one token per pseudo-word; each round adds 512 words, bounded.
  const size_t rounds = need / 256 + 8;
  for (size_t i = 0; i < rounds && tokens_.size() < need; ++i) {
    const std::vector<int> t = client.tokenize(seeded_text(seed * 1000003 + i, 512) + "\n");
    tokens_.insert(tokens_.end(), t.begin(), t.end());
  }
  if (tokens_.size() < need) {
    throw UserError(fmt::format("the server's tokenizer gave {} tokens for the prompts, {} needed",
                                tokens_.size(), need),
                    "a tokenizer that turns text into tokens (a servable model)",
                    "serve a model with a real vocabulary (a twin made with synth --servable)");
  }
}

std::vector<int> PromptPool::take(size_t offset, size_t n) const {
  if (offset + n > tokens_.size())
    throw std::logic_error(
        fmt::format("prompt pool of {} tokens: [{}, +{})", tokens_.size(), offset, n));
  return {tokens_.begin() + static_cast<std::ptrdiff_t>(offset),
          tokens_.begin() + static_cast<std::ptrdiff_t>(offset + n)};
}

}  // namespace moesweep
