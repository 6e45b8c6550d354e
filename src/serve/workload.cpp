#include "serve/workload.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "util/error.hpp"
#include "util/json_file.hpp"
#include "util/parse_list.hpp"
#include "util/paths.hpp"

namespace moesweep {
namespace {

const char* const kKinds[] = {"prompt-cache", "multi-turn", "batch", "cold-start", "open-loop"};

void check_range(const std::string& origin, const char* key, int v, int lo, int hi) {
  if (v < lo || v > hi) {
    throw UserError(fmt::format("{}: \"{}\" is {}", origin, key, v),
                    fmt::format("{} between {} and {}", key, lo, hi),
                    fmt::format("set \"{}\" in {} within those bounds", key, origin));
  }
}

// The numbers together: a multi-turn history of 8200 turns of 262144 tokens
// each is within every single bound and still no context any server has.
void check_sizes(const Workload& w, const std::string& o) {
  if (w.context_tokens() > kMaxServeContext) {
    throw UserError(
        fmt::format("{}: a request of this workload holds {} tokens ({} prompt + {} output)", o,
                    w.context_tokens(), w.max_prompt_tokens(), w.n_predict),
        fmt::format("at most {} tokens per request (more than any server's context)",
                    kMaxServeContext),
        "lower requests, suffix_tokens or system_tokens in the file");
  }
  if (w.pool_tokens() > kMaxPoolTokens) {
    throw UserError(
        fmt::format("{}: the workload draws {} distinct prompt tokens", o, w.pool_tokens()),
        fmt::format("at most {} (they are tokenized before the first request)", kMaxPoolTokens),
        "lower requests or suffix_tokens in the file");
  }
}

// The open-loop fields: lengths, the shared prefix, a prompts file, the protocol.
void read_open_loop(const nlohmann::json& j, Workload& w, const std::string& o) {
  w.prompt_len = read_length_dist(j, "prompt_tokens", 1, 262144, 128, o);
  w.output_len = read_length_dist(j, "output_tokens", 1, 65536, 32, o);
  w.shared_prefix_tokens = optional_field<int>(j, "shared_prefix_tokens", 0, o);
  w.shared_prefix_share = optional_field<double>(j, "shared_prefix_share", 0.0, o);
  check_range(o, "shared_prefix_tokens", w.shared_prefix_tokens,
              w.shared_prefix_share > 0 ? 2 * kRequestHeadTokens : 0, 262144);
  if (!(w.shared_prefix_share >= 0 && w.shared_prefix_share <= 1))
    throw UserError(fmt::format("{}: \"shared_prefix_share\" is {}", o, w.shared_prefix_share),
                    "a share of the requests from 0 to 1", "fix it in the file");
  // Every prompt holds its own head of kRequestHeadTokens; a shared one the prefix too.
  const int shortest =
      kRequestHeadTokens + 1 + (w.shared_prefix_share > 0 ? w.shared_prefix_tokens : 0);
  if (!j.contains("prompts_file") && w.prompt_len.min < shortest)
    throw UserError(
        fmt::format("{}: the shortest prompt is {} tokens", o, w.prompt_len.min),
        fmt::format("at least {} ({} of a request's own head + 1{})", shortest, kRequestHeadTokens,
                    w.shared_prefix_share > 0 ? " + the shared prefix" : ""),
        "raise \"prompt_tokens\" (its min) or lower \"shared_prefix_tokens\"");
  if (j.contains("prompts_file"))
    w.prompts = std::make_shared<const PromptsFile>(read_prompts_file(
        optional_field<std::string>(j, "prompts_file", "", o), w.source, 262144, 65536));
  const nlohmann::json protocol = j.value("cache_protocol", nlohmann::json::object());
  w.warmup = optional_field<int>(protocol, "warmup", w.warmup, o + " cache_protocol");
  w.flush = optional_field<std::string>(protocol, "flush", w.flush, o + " cache_protocol");
  w.prime = optional_field<bool>(protocol, "prime", w.prime, o + " cache_protocol");
  check_range(o, "cache_protocol.warmup", w.warmup, 0, 1000);
  if (w.flush != "unique" && w.flush != "restart")
    throw UserError(fmt::format("{}: cache_protocol.flush '{}'", o, w.flush),
                    "unique (prompts never seen before) or restart (a fresh server per rate)",
                    "fix \"flush\" in the file");
  const int most_output = w.prompts ? w.prompts->most_output() : 0;
  w.n_predict = std::max(w.output_len.max, most_output);
}

}  // namespace

int64_t Workload::max_prompt_tokens() const {
  const int64_t system = system_tokens, suffix = suffix_tokens, out = n_predict;
  if (kind == "multi-turn") return system + requests * (suffix + out);
  if (open_loop()) return prompts ? prompts->longest() : prompt_len.max;
  return system + suffix + 16;  // + a timestamp line
}

int64_t Workload::context_tokens() const {
  return max_prompt_tokens() + n_predict;
}

int64_t Workload::pool_tokens() const {
  // open-loop: the shared prefix, then bodies cut from one stretch (each
  // request's own head keeps its prefix unique)
  if (open_loop()) return prompts ? 0 : shared_prefix_tokens + prompt_len.max + kOpenLoopBodyPool;
  const int64_t levels = kind == "batch" ? static_cast<int64_t>(concurrency.size()) : 1;
  return system_tokens + levels * requests * int64_t{suffix_tokens};
}

nlohmann::json Workload::to_json() const {
  return {{"name", name},
          {"kind", kind},
          {"seed", seed},
          {"system_tokens", system_tokens},
          {"suffix_tokens", suffix_tokens},
          {"requests", requests},
          {"n_predict", n_predict},
          {"break_cache", break_cache},
          {"concurrency", concurrency},
          {"cache_protocol", cache_protocol()}};
}

nlohmann::json Workload::cache_protocol() const {
  if (open_loop()) {
    nlohmann::json j = {
        {"warmup", warmup},
        {"flush", flush == "restart" ? "restart: a fresh llama-server before each rate"
                  : prompts          ? "none: a prompts file's prompts are sent as given"
                                     : "unique: each request opens with its own head, so no prompt "
                                       "shares a prefix with one sent before"},
        {"prime", prime && shared_prefix_share > 0 && !prompts
                      ? "the rate's shared prefix sent once before the rate"
                      : "none"},
        {"measure", "every request of the rate"},
        {"prompt_tokens", prompt_len.to_json()},
        {"output_tokens", output_len.to_json()}};
    if (shared_prefix_share > 0)
      j["shared_prefix"] = {{"tokens", shared_prefix_tokens}, {"share", shared_prefix_share}};
    if (prompts) j["prompts_file"] = prompts->path.string();
    return j;
  }
  const bool cold = kind == "cold-start";
  return {{"warmup", 0},
          {"flush", cold ? "restart with the model dropped from the page cache, then restart warm"
                         : "unique: the workload's seeded prompts were never sent before"},
          {"prime", kind == "prompt-cache" || kind == "multi-turn"
                        ? "the first request (cold) fills a slot's cache"
                        : "none"},
          {"measure", kind == "prompt-cache" ? "every request; the first is the cold one"
                      : kind == "multi-turn" ? "every turn; each reuses the history"
                      : kind == "batch"      ? "every document at every concurrency"
                                             : "the first request after each start"}};
}

std::vector<std::string> workload_names() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(profiles_dir() / "workloads", ec))
    if (e.path().extension() == ".json") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

Workload load_workload(const std::string& name_or_path) {
  std::filesystem::path path = name_or_path;
  if (!std::filesystem::exists(path))
    path = profiles_dir() / "workloads" / (name_or_path + ".json");
  if (!std::filesystem::exists(path)) {
    throw UserError(fmt::format("no workload '{}'", name_or_path),
                    fmt::format("one of: {} (profiles/workloads), or a JSON file path",
                                fmt::join(workload_names(), ", ")),
                    "pick one of those names");
  }
  const nlohmann::json j = read_json_file(path, "workload");
  const std::string o = path.string();
  Workload w;
  w.source = path;
  w.name = optional_field<std::string>(j, "name", path.stem().string(), o);
  w.kind = require_field<std::string>(j, "kind", o);
  w.description = optional_field<std::string>(j, "description", "", o);
  w.seed = static_cast<uint64_t>(optional_field<int64_t>(j, "seed", 1, o));
  w.system_tokens = optional_field<int>(j, "system_tokens", w.system_tokens, o);
  w.suffix_tokens = optional_field<int>(j, "suffix_tokens", w.suffix_tokens, o);
  w.requests = optional_field<int>(j, "requests", w.requests, o);
  w.n_predict = optional_field<int>(j, "n_predict", w.n_predict, o);
  w.break_cache = optional_field<std::string>(j, "break_cache", w.break_cache, o);
  if (j.contains("concurrency")) {
    w.concurrency.clear();
    for (int64_t c :
         parse_int_list(optional_field<std::string>(j, "concurrency", "1", o), "concurrency"))
      w.concurrency.push_back(static_cast<int>(c));
  }
  if (std::find(std::begin(kKinds), std::end(kKinds), w.kind) == std::end(kKinds)) {
    throw UserError(fmt::format("{}: unknown workload kind '{}'", o, w.kind),
                    "kind prompt-cache, multi-turn, batch, cold-start or open-loop",
                    "fix \"kind\" in the file");
  }
  if (w.open_loop()) read_open_loop(j, w, o);
  if (w.break_cache != "none" && w.break_cache != "timestamp" && w.break_cache != "whitespace") {
    throw UserError(fmt::format("{}: break_cache '{}'", o, w.break_cache),
                    "none, timestamp or whitespace", "fix \"break_cache\" in the file");
  }
  check_range(o, "system_tokens", w.system_tokens, 0, 262144);
  check_range(o, "suffix_tokens", w.suffix_tokens, 1, 262144);
  check_range(o, "requests", w.requests, 1, 100000);
  check_range(o, "n_predict", w.n_predict, 1, 65536);
  for (int c : w.concurrency) check_range(o, "concurrency", c, 1, 512);
  check_sizes(w, o);
  return w;
}

void check_workloads_fit(const std::vector<Workload>& workloads, int64_t per_slot,
                         const std::string& server) {
  for (const Workload& w : workloads) {
    if (w.context_tokens() <= per_slot) continue;
    throw UserError(
        fmt::format("workload {} needs {} tokens of context per request ({} prompt + {} output), "
                    "but {} gives each slot {}",
                    w.name, w.context_tokens(), w.max_prompt_tokens(), w.n_predict, server,
                    per_slot),
        "every request of every workload fits one slot of the server's context",
        "raise -c (or lower --parallel), or make the workload smaller");
  }
}

}  // namespace moesweep
