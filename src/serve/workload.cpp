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

const char* const kKinds[] = {"prompt-cache", "multi-turn", "batch", "cold-start"};

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

}  // namespace

int64_t Workload::max_prompt_tokens() const {
  const int64_t system = system_tokens, suffix = suffix_tokens, out = n_predict;
  if (kind == "multi-turn") return system + requests * (suffix + out);
  return system + suffix + 16;  // + a timestamp line
}

int64_t Workload::context_tokens() const {
  return max_prompt_tokens() + n_predict;
}

int64_t Workload::pool_tokens() const {
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
          {"concurrency", concurrency}};
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
                    "kind prompt-cache, multi-turn, batch or cold-start",
                    "fix \"kind\" in the file");
  }
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
