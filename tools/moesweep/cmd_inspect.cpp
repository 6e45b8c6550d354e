// `moesweep inspect MODEL.gguf`: what a model costs per decoded token, from its
// headers only (a 13-part 520 GiB model takes milliseconds): tensor groups,
// bytes per routed expert, active bytes per token at a KV depth, and the decode
// ceiling on this machine when its bandwidth is known.
#include <fmt/format.h>

#include "commands.hpp"
#include "inspect_print.hpp"
#include "model/gguf_inspect.hpp"
#include "model/kv_cache.hpp"
#include "sweep/spec_limits.hpp"
#include "util/error.hpp"
#include "util/parse_list.hpp"

namespace moesweep::cli {

namespace {

struct InspectOptions {
  std::string model;
  std::string depth_text = "0";  // parsed by us: shown as written when out of range
  int64_t depth = 0;
  std::string cache_type_k = "f16";
  std::string cache_type_v;  // default: same as K
  bool json = false;
  bool tensors = false;
};

// One depth in 0..kMaxContext: beyond it the KV bytes (depth x bytes per
// token) would wrap around uint64 and print a plausible-looking number.
int64_t parse_depth(const std::string& text) {
  const std::vector<int64_t> v = parse_int_list(text, "--depth");
  if (v.size() != 1 || v[0] < 0 || v[0] > kMaxContext) {
    throw UserError(
        fmt::format("--depth '{}' is not one depth a context can hold", text),
        fmt::format("one number from 0 to {} (moesweep's largest context)", kMaxContext),
        "give the KV depth in tokens, e.g. --depth 131072");
  }
  return v[0];
}

int run_inspect(InspectOptions o) {
  o.depth = parse_depth(o.depth_text);
  const ggml_type tk = parse_cache_type(o.cache_type_k);
  const ggml_type tv = parse_cache_type(o.cache_type_v.empty() ? o.cache_type_k : o.cache_type_v);
  const GgufInspection m = inspect_gguf(o.model);
  const ActiveBytes a = active_bytes_per_token(m, o.depth, tk, tv);
  if (o.json)
    print_inspection_json(m, a, o.depth, tk, tv, o.tensors);
  else
    print_inspection(m, a, o.depth, tk, tv, o.tensors);
  return 0;
}

}  // namespace

void add_inspect_command(CLI::App& app, CommandRunner& run) {
  auto opts = std::make_shared<InspectOptions>();
  CLI::App* cmd =
      app.add_subcommand("inspect", "bytes per token of a GGUF model, from its headers only");
  cmd->add_option("model", opts->model, "model .gguf (for a split model, any part)")->required();
  cmd->add_option("--depth,-d", opts->depth_text,
                  "KV depth (tokens in the cache) for the KV bytes read");
  cmd->add_option("--cache-type,--cache-type-k,--ctk", opts->cache_type_k,
                  "KV cache type (f16, q8_0, ...)");
  cmd->add_option("--cache-type-v,--ctv", opts->cache_type_v, "V cache type (default: the K type)");
  cmd->add_flag("--tensors", opts->tensors, "list every tensor");
  cmd->add_flag("--json", opts->json, "print JSON instead of text");
  cmd->callback([&run, opts] { run = [opts] { return run_inspect(*opts); }; });
}

}  // namespace moesweep::cli
