// ik_llama.cpp's side of engine/worker/llama_model.hpp: loading. What differs
// from mainline: no load modes (mmap on or off, mlock), no device buffer types
// for -ot (its ggml has no device registry), and its own load switches -rtr,
// -mla and -amb (engine/engine_knobs.hpp).
#include <fmt/format.h>

#include "engine/worker/llama_backend.hpp"
#include "engine/worker/llama_model.hpp"
#include "engine/worker/model_file.hpp"
#include "ggml.h"
#include "llama.h"
#include "util/error.hpp"

namespace moesweep::worker {
namespace {

// -lm as ik_llama.cpp can do it: mmap on or off, and mlock.
void apply_load_mode(const std::string& mode, llama_model_params& mp) {
  if (mode == "auto" || mode == "mmap") return;  // ik's default: mmap
  if (mode == "none") {
    mp.use_mmap = false;
  } else if (mode == "mlock" || mode == "mmap+mlock") {
    mp.use_mlock = true;
  } else {
    throw UserError(fmt::format("-lm {}: ik_llama.cpp cannot load that way", mode),
                    "auto, none, mmap, mlock or mmap+mlock on ik_llama.cpp",
                    "pick one of those for this engine");
  }
}

void apply_load_knobs(const EngineKnobs& k, llama_model_params& mp) {
  if (k.repack == 1) mp.use_mmap = false;  // ik repacks only weights it owns (as its -rtr does)
  if (k.repack >= 0) mp.repack_tensors = k.repack == 1;
  if (k.mla >= 0) mp.mla = k.mla;
  if (k.attn_max_batch >= 0) mp.amb = k.attn_max_batch;
}

}  // namespace

void refuse_knobs(const EngineKnobs&) {}  // this engine has them all

Model::Model(const ModelLoadParams& p) {
  init_engine_backends();
  check_gguf_file(p.path);
  if (!p.tensor_overrides.empty() || p.n_cpu_moe > 0)
    throw UserError("-ot and --n-cpu-moe are not supported on an ik_llama.cpp engine here",
                    "a CPU-only sweep on ik_llama.cpp", "drop -ot/--n-cpu-moe for this engine");
  if (p.numa != "disabled") {
    llama_numa_init(p.numa == "distribute" ? GGML_NUMA_STRATEGY_DISTRIBUTE
                    : p.numa == "isolate"  ? GGML_NUMA_STRATEGY_ISOLATE
                                           : GGML_NUMA_STRATEGY_NUMACTL);
  }
  llama_model_params mp = llama_model_default_params();
  // -1 (all layers, llama-bench's default) sends a CPU-only ik build through
  // its GPU fitting, which warns about "device 0"; 0 places the same layers.
  mp.n_gpu_layers = p.n_gpu_layers < 0 && !ggml_cpu_has_cuda() ? 0 : p.n_gpu_layers;
  apply_load_mode(p.load_mode, mp);
  apply_load_knobs(p.knobs, mp);
  model_ = llama_model_load_from_file(p.path.c_str(), mp);
  if (!model_) {
    throw UserError(fmt::format("ik_llama.cpp could not load '{}'", p.path),
                    "a complete GGUF of an architecture this engine knows",
                    "MOESWEEP_ENGINE_LOG=info shows the engine's reason");
  }
  facts_ = model_facts_of(model_, p.path);
  facts_.n_layer = llama_n_layer(model_);
  facts_.n_vocab = llama_n_vocab(model_);
  facts_.n_ctx_train = llama_n_ctx_train(model_);
}

Model::~Model() {
  if (model_) llama_free_model(model_);
}

}  // namespace moesweep::worker
