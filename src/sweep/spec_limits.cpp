#include "sweep/spec_limits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <initializer_list>
#include <map>

#include "sweep/sweep_spec.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

// In double: a product of many 4096-value axes overflows int64.
double product(std::initializer_list<size_t> axis_sizes) {
  double p = 1;
  for (const size_t n : axis_sizes) p *= static_cast<double>(std::max<size_t>(n, 1));
  return p;
}

}  // namespace

ValueLimit value_limit(const std::string& key) {
  static const char* const kContext = "a point must fit in the largest context moesweep runs";
  static const std::map<std::string, ValueLimit> limits = {
      {"threads", {engine_limits::kMaxThreads, "the engine's GGML_MAX_N_THREADS"}},
      {"threads-batch", {engine_limits::kMaxThreads, "the engine's GGML_MAX_N_THREADS"}},
      {"ctx-size", {kMaxContext, "moesweep's largest context, 16M tokens"}},
      {"batch-size", {kMaxContext, "moesweep's largest context, 16M tokens"}},
      {"ubatch-size", {kMaxContext, "moesweep's largest context, 16M tokens"}},
      {"n-prompt", {kMaxContext, kContext}},
      {"n-gen", {kMaxContext, kContext}},
      {"depths", {kMaxContext, kContext}},
      {"depth-step", {kMaxContext, kContext}},
      {"depth-max", {kMaxContext, kContext}},
      {"repetitions", {kMaxRepetitions, "more repetitions than this narrow nothing"}},
      {"poll", {100, "the threadpool's polling level is a percentage"}},
      {"n-cpu-moe", {engine_limits::kMaxLayers, "the engine's LLAMA_MAX_LAYERS"}},
      {"layers", {engine_limits::kMaxLayers, "the engine's LLAMA_MAX_LAYERS"}},
      {"experts", {engine_limits::kMaxExperts, "the engine's LLAMA_MAX_EXPERTS"}},
      {"experts-used", {engine_limits::kMaxExperts, "the engine's LLAMA_MAX_EXPERTS"}},
  };
  const auto it = limits.find(key);
  return it == limits.end() ? ValueLimit{INT32_MAX, "the largest int"} : it->second;
}

void check_value_limit(const std::string& key, const std::string& flag, int64_t v,
                       int64_t min_value) {
  const ValueLimit limit = value_limit(key);
  if (v < min_value)
    throw UserError(fmt::format("{}: value {} is too small", flag, v),
                    fmt::format("values >= {}", min_value), fmt::format("fix {}", flag));
  if (v > limit.max)
    throw UserError(fmt::format("{}: value {} is too large", flag, v),
                    fmt::format("values <= {} ({})", limit.max, limit.why),
                    fmt::format("lower {}", flag));
}

void check_spec_limits(const SweepSpec& spec, bool ctx_and_batch_given, const std::string& origin) {
  // The engine caps the batch at the context and would run another batch
  // than the one recorded; with both given by the user that is a contradiction.
  if (ctx_and_batch_given && !spec.n_ctx.empty()) {
    const int ctx = *std::min_element(spec.n_ctx.begin(), spec.n_ctx.end());
    for (const int b : spec.n_batch)
      if (b > ctx) {
        throw UserError(
            fmt::format("{}: -b {} is larger than -c {}: the engine would cap the batch at {} "
                        "and the records would name a batch that never ran",
                        origin, b, ctx, ctx),
            "-b <= -c for every combination", fmt::format("lower -b to {} or raise -c", ctx));
      }
  }
  const double contexts = product({spec.models.size(), spec.n_cpu_moe.size(), spec.n_ctx.size(),
                                   spec.n_batch.size(), spec.n_ubatch.size(), spec.type_k.size(),
                                   spec.type_v.size(), spec.flash_attn.size()});
  const double threads =
      product({spec.cpu_masks.size(), spec.threads.size(), spec.threads_batch.size()});
  if (contexts * threads > static_cast<double>(kMaxPoints)) {
    throw UserError(
        fmt::format("{}: {:.0f} contexts x {:.0f} thread settings make more than {} points", origin,
                    contexts, threads, kMaxPoints),
        fmt::format("at most {} points (contexts x depths x thread settings) per run", kMaxPoints),
        "split the sweep into several runs (one per model or cache type, say)");
  }
}

}  // namespace moesweep
