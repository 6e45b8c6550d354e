#pragma once
// A serve workload is data (profiles/workloads/<name>.json), not code: its
// kind picks the request pattern, the numbers size it. Every loop it makes is
// bounded by these counts.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "serve/length_dist.hpp"
#include "serve/prompts_file.hpp"

namespace moesweep {

struct Workload {
  // kind: prompt-cache | multi-turn | batch | cold-start | open-loop
  std::string name, kind, description;
  uint64_t seed = 1;
  int system_tokens = 1024;  // the shared system digest S
  int suffix_tokens = 64;    // prompt-cache: each request's own part; batch: a document
  int requests = 4;          // prompt-cache: K requests; batch: N documents; multi-turn: turns
  int n_predict = 16;        // fixed output length (ignore_eos)
  std::string break_cache = "none";    // prompt-cache: none | timestamp | whitespace
  std::vector<int> concurrency = {1};  // batch: client counts to try
  std::filesystem::path source;

  // open-loop (serve-bench --request-rate / --find-capacity): each request's
  // lengths drawn (n_predict is the longest output), a prefix shared by a
  // share of the requests, or the prompts of a file.
  LengthDist prompt_len, output_len;
  int shared_prefix_tokens = 0;
  double shared_prefix_share = 0;
  std::shared_ptr<const PromptsFile> prompts;
  // Its prompt-cache protocol: warm-up requests before the first rate (not
  // measured); the flush before each rate ("unique": no measured prompt
  // shares a prefix with one sent before but the workload's own shared prefix,
  // which is new at each rate; "restart": a fresh llama-server); prime: the
  // shared prefix sent once before each rate, so the rate finds it cached.
  int warmup = 1;
  std::string flush = "unique";
  bool prime = true;

  bool open_loop() const { return kind == "open-loop"; }
  // The protocol every kind follows (warmup, flush, prime, measure), for the record.
  nlohmann::json cache_protocol() const;

  // In 64 bits: each count is bounded, their products are not.
  int64_t max_prompt_tokens() const;  // the longest prompt it sends
  int64_t context_tokens() const;     // what one slot must hold: the prompt and the output
  int64_t pool_tokens() const;        // the distinct prompt tokens it draws (PromptPool)
  nlohmann::json to_json() const;
};

// The most tokens a workload may put in one request's context: more than any
// server's context (16M, moesweep's largest).
inline constexpr int64_t kMaxServeContext = int64_t{1} << 24;
// The most distinct prompt tokens a workload may draw (tokenized up front).
inline constexpr int64_t kMaxPoolTokens = int64_t{1} << 26;
// An open-loop request opens with a head of its own (its number in tokens):
// no two prompts share more than that unless the workload shares a prefix.
inline constexpr int kRequestHeadTokens = 4;
// The stretch of tokens open-loop bodies are cut from, past the longest prompt.
inline constexpr int64_t kOpenLoopBodyPool = 2048;

// A name from profiles/workloads or a JSON file path; UserError when missing,
// malformed or out of bounds (each number, and the context and pool they
// make together, computed in 64 bits).
Workload load_workload(const std::string& name_or_path);
// UserError when a workload's request does not fit one slot of `per_slot`
// tokens (`server`: where that context comes from, for the message).
void check_workloads_fit(const std::vector<Workload>& workloads, int64_t per_slot,
                         const std::string& server);
std::vector<std::string> workload_names();

}  // namespace moesweep
