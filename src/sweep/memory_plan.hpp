#pragma once
// What a context will take in memory before anything is loaded: the model
// (its file, or a twin's estimate from its profile), the KV cache (the one
// formula of model/kv_cache.hpp) and the engine's compute and output buffers
// (an estimate from the graph's largest tensors, checked against the engine's
// own figures in docs/hardware.md). The dry run prints it per context; the
// runner refuses a model group, before loading it, when a context cannot fit.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "model/kv_cache.hpp"
#include "model/twin_spec.hpp"
#include "sweep/plan.hpp"

namespace moesweep {

struct GgufInspection;

// The model facts the footprint needs.
struct MemoryShape {
  uint64_t model_bytes = 0;
  std::string model_source;  // "file" or "twin estimate"
  KvShape kv;
  int64_t n_vocab = 0, n_embd = 0, n_head = 0;
};

MemoryShape memory_shape_of(const GgufInspection& g);
// The group's GGUF (a file, or a twin already in the cache), else the twin's
// profile at its quant's bits per weight.
MemoryShape memory_shape_of(const ModelGroup& group, const SweepSpec& spec);

struct Footprint {
  uint64_t model = 0, kv = 0, compute = 0;
  // The model's pages are the file's mapping (load mode auto or mmap): the
  // kernel may drop and re-read them, so they need not fit (decode then reads
  // the disk). Otherwise they are copied into (or locked in) RAM.
  bool model_evictable = true;
  uint64_t total() const { return model + kv + compute; }
  uint64_t must_fit() const { return kv + compute + (model_evictable ? 0 : model); }
};

// `engines` workers hold the model at once (sweep --engine a,b): each has its
// own KV cache and compute buffers; a mapped model is one copy in the page
// cache for all of them, a copied or locked one (-lm none, mlock) one each.
Footprint context_footprint(const MemoryShape& m, const ContextParams& c,
                            const std::string& load_mode, size_t engines = 1);
// The engine's compute + output buffers for one ubatch (an estimate).
uint64_t estimated_compute_bytes(const MemoryShape& m, const ContextParams& c);

// "" when `f` fits in `available` bytes (0: unknown, taken as fitting); else
// what does not fit and the fix. model_loaded: the model is in memory already
// (only the context's part is still to come).
std::string footprint_problem(const Footprint& f, uint64_t available, bool model_loaded);
// Why the group's largest valid context cannot fit in `available` bytes
// before its model is loaded; "" when every one fits.
std::string group_memory_problem(const ModelGroup& group, const MemoryShape& shape,
                                 uint64_t available, size_t engines = 1);
// "model 1.3 GiB + KV 4.5 MiB + compute ~30 MiB = 1.4 GiB"
std::string footprint_text(const Footprint& f);

// The plan's twins not in the cache yet, each once: what the run will build
// (their disk is checked by model/twin_space.hpp, in the dry run too).
std::vector<TwinSpec> twins_to_build(const Plan& plan);
// A twin group's file in the cache, when it is there already (the dry run
// tells a cached twin from one to build); nullopt for a GGUF file's group.
std::optional<std::filesystem::path> cached_twin(const ModelGroup& g, const SweepSpec& spec);

}  // namespace moesweep
