#include "serve/traffic_prompts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

#include "serve/arrival_schedule.hpp"
#include "serve/prompt_pool.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

constexpr int kDigitBits = 6;                // 64 distinct ids spell a head
constexpr uint64_t kRoundStride = 1u << 17;  // requests per round (> --num-requests' bound)
constexpr uint64_t kPrefixNumber = kRoundStride - 1;  // the round's shared prefix

}  // namespace

TrafficPrompts::TrafficPrompts(const Workload& w, const ServeClient& client) : w_(w) {
  if (w.prompts && !client.exact_tokens())
    throw UserError(fmt::format("workload {} sends the token ids of {} to a server spoken to "
                                "through --api {}",
                                w.name, w.prompts->path.string(), api_name(client.api())),
                    "--api llama (/completion takes token ids) for a prompts file",
                    "benchmark a llama-server, or use a workload without \"prompts_file\"");
  if (w.prompts) return;
  pool_ = PromptPool(client, w.seed, static_cast<size_t>(w.pool_tokens())).take(0, w.pool_tokens());
  std::unordered_set<int> seen;
  for (int id : pool_)
    if (alphabet_.size() < (1u << kDigitBits) && seen.insert(id).second) alphabet_.push_back(id);
  if (alphabet_.size() < (1u << kDigitBits))
    throw UserError(fmt::format("the server's tokenizer gave {} distinct tokens for the prompts",
                                alphabet_.size()),
                    fmt::format("at least {} (each request's head spells its number in them)",
                                1u << kDigitBits),
                    "serve a model with a real vocabulary (a twin made with synth --servable)");
}

std::vector<int> TrafficPrompts::head(int round, uint64_t number) const {
  const uint64_t n = static_cast<uint64_t>(round) * kRoundStride + number;
  std::vector<int> out;
  for (int k = 0; k < kRequestHeadTokens;
       ++k)  // least significant first: neighbours differ at once
    out.push_back(alphabet_[(n >> (kDigitBits * k)) & ((1u << kDigitBits) - 1)]);
  return out;
}

bool TrafficPrompts::shares_prefix(size_t index) const {
  if (w_.prompts || w_.shared_prefix_share <= 0) return false;
  SeededDraws d(w_.seed * 0x94D049BB133111EBull + index);
  return d.uniform() < w_.shared_prefix_share;
}

std::vector<int> TrafficPrompts::shared_prefix(int round) const {
  return concat(head(round, kPrefixNumber),
                {pool_.begin(), pool_.begin() + (w_.shared_prefix_tokens - kRequestHeadTokens)});
}

CompletionRequest TrafficPrompts::prime(int round) const {
  CompletionRequest r;
  r.task = "prime";
  r.n_predict = 1;
  if (!w_.prompts && w_.shared_prefix_share > 0 && w_.prime) r.prompt = shared_prefix(round);
  return r;
}

CompletionRequest TrafficPrompts::request(int round, size_t index) const {
  CompletionRequest r;
  r.task = round == 0 ? fmt::format("warm-up {}", index + 1) : fmt::format("#{}", index + 1);
  r.n_predict = w_.output_len.draw(w_.seed ^ 0x5DEECE66Dull, index);
  if (w_.prompts) {
    const FilePrompt& p = w_.prompts->prompts[index % w_.prompts->prompts.size()];
    r.prompt = p.tokens;
    if (p.output_tokens > 0) r.n_predict = p.output_tokens;
    return r;
  }
  const int length = w_.prompt_len.draw(w_.seed, index);
  if (shares_prefix(index)) r.prompt = shared_prefix(round);
  r.prompt = concat(r.prompt, head(round, index));
  // The body: from a seeded place in the stretch past the shared prefix.
  const size_t body = static_cast<size_t>(std::max<int64_t>(0, length - int64_t(r.prompt.size())));
  const size_t from = static_cast<size_t>(w_.shared_prefix_tokens);
  const size_t span = pool_.size() - from - body + 1;
  const size_t at = from + SeededDraws(w_.seed + 7 * index).uniform() * span;
  r.prompt.insert(r.prompt.end(), pool_.begin() + at, pool_.begin() + at + body);
  return r;
}

}  // namespace moesweep
