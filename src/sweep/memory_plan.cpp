#include "sweep/memory_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "model/gguf_inspect.hpp"
#include "model/model_profile.hpp"
#include "model/twin_builder.hpp"
#include "model/twin_space.hpp"
#include "sweep/twin_axes.hpp"

namespace moesweep {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;
constexpr double kMiB = 1024.0 * 1024;

std::string size_text(uint64_t bytes) {
  return bytes >= kGiB ? fmt::format("{:.2f} GiB", bytes / kGiB)
                       : fmt::format("{:.1f} MiB", bytes / kMiB);
}

MemoryShape twin_estimate(const TwinSpec& twin) {
  const ModelShape& s = twin.profile.shape;
  MemoryShape m;
  m.model_bytes = estimated_twin_bytes(twin);
  m.model_source = "twin estimate";
  m.kv = kv_shape_of(s);
  m.n_vocab = s.vocab, m.n_embd = s.hidden, m.n_head = s.heads;
  return m;
}

}  // namespace

MemoryShape memory_shape_of(const GgufInspection& g) {
  MemoryShape m;
  m.model_bytes = g.file_bytes;
  m.model_source = "file";
  m.kv = kv_shape_of(g);
  m.n_vocab = g.n_vocab, m.n_embd = g.n_embd, m.n_head = g.n_head;
  return m;
}

MemoryShape memory_shape_of(const ModelGroup& group, const SweepSpec& spec) {
  if (!group.choice.file.empty()) return memory_shape_of(inspect_gguf(group.choice.file));
  const TwinSpec twin = twin_spec_of(group, spec);
  const std::filesystem::path built = twin_cache_dir() / (twin.file_stem() + ".gguf");
  std::error_code ec;
  if (std::filesystem::is_regular_file(built, ec)) {
    try {
      return memory_shape_of(inspect_gguf(built));
    } catch (const std::exception&) {
      // a damaged cache file is rebuilt by the run: estimate as for a new twin
    }
  }
  return twin_estimate(twin);
}

uint64_t estimated_compute_bytes(const MemoryShape& m, const ContextParams& c) {
  // F32 activations of one ubatch. The graph allocator reuses memory, so the
  // buffer follows the largest tensors alive together: the logits, about 18
  // rows of the model's width, and without flash attention the scores of
  // every cached position per head. Fitted to the engine's own figures for
  // the kimi twin (ubatch 64-512, ctx 512-4096: within +3% with flash
  // attention, +24% without). It leaves out what grows with the context
  // (docs/hardware.md: 29% short at ctx 32768 with flash attention).
  // `auto` counts as on: the CPU engine turns it on.
  const auto ub = static_cast<uint64_t>(c.n_ubatch);
  const uint64_t rows = static_cast<uint64_t>(m.n_vocab + 18 * m.n_embd);
  const uint64_t scores =
      c.flash_attn == 0 ? static_cast<uint64_t>(c.n_ctx) * static_cast<uint64_t>(m.n_head) : 0;
  return 4 * ub * (rows + scores);
}

Footprint context_footprint(const MemoryShape& m, const ContextParams& c,
                            const std::string& load_mode, size_t engines) {
  const uint64_t n = std::max<size_t>(1, engines);
  Footprint f;
  f.model_evictable = load_mode == "auto" || load_mode == "mmap";
  f.model = m.model_bytes * (f.model_evictable ? 1 : n);
  f.kv = kv_cache_bytes(m.kv, c) * n;
  f.compute = estimated_compute_bytes(m, c) * n;
  return f;
}

std::string footprint_problem(const Footprint& f, uint64_t available, bool model_loaded) {
  const uint64_t need = model_loaded ? f.kv + f.compute : f.must_fit();
  if (available == 0 || need <= available) return "";
  const std::string what =
      model_loaded || f.model_evictable
          ? fmt::format("KV {} + compute ~{}", size_text(f.kv), size_text(f.compute))
          : fmt::format("model {} + KV {} + compute ~{}", size_text(f.model), size_text(f.kv),
                        size_text(f.compute));
  return fmt::format(
      "this context needs {} = {} of RAM but only {} is available (MemAvailable); "
      "lower -c, use -ctk q8_0 -ctv q8_0 -fa on, or free memory",
      what, size_text(need), size_text(available));
}

std::string group_memory_problem(const ModelGroup& group, const MemoryShape& shape,
                                 uint64_t available, size_t engines) {
  for (const ContextGroup& cg : group.contexts) {
    if (!cg.invalid_reason.empty()) continue;
    const std::string why = footprint_problem(
        context_footprint(shape, cg.params, group.load.load_mode, engines), available, false);
    if (!why.empty()) return fmt::format("ctx {}: {}", cg.params.n_ctx, why);
  }
  return "";
}

std::string footprint_text(const Footprint& f) {
  return fmt::format("model {}{} + KV {} + compute ~{} = {}", size_text(f.model),
                     f.model_evictable ? " (mapped)" : "", size_text(f.kv), size_text(f.compute),
                     size_text(f.total()));
}

std::optional<std::filesystem::path> cached_twin(const ModelGroup& g, const SweepSpec& spec) {
  if (!g.choice.file.empty()) return std::nullopt;
  const std::filesystem::path file =
      twin_cache_dir() / (twin_spec_of(g, spec).file_stem() + ".gguf");
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return std::nullopt;
  return file;
}

std::vector<TwinSpec> twins_to_build(const Plan& plan) {
  std::vector<TwinSpec> out;
  std::set<std::string> seen;
  for (const ModelGroup& g : plan.models) {
    if (!g.choice.file.empty() || cached_twin(g, plan.spec)) continue;
    TwinSpec twin = twin_spec_of(g, plan.spec);
    if (seen.insert(twin.file_stem()).second) out.push_back(std::move(twin));
  }
  return out;
}

}  // namespace moesweep
