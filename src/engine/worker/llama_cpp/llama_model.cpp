#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/worker/llama_backend.hpp"
#include "engine/worker/llama_cpp/llama_api.hpp"
#include "engine/worker/llama_cpp/threadpool_api.hpp"
#include "engine/worker/llama_model.hpp"
#include "engine/worker/model_file.hpp"
#include "ggml-backend.h"
#include "llama.h"
#include "util/error.hpp"

namespace moesweep::worker {
namespace {

ggml_backend_buffer_type_t find_buffer_type(const std::string& name) {
  std::vector<std::string> known;
  for (size_t i = 0; i < ggml_backend_dev_count(); ++i) {
    ggml_backend_dev_t dev = ggml_backend_dev_get(i);
    for (ggml_backend_buffer_type_t buft :
         {ggml_backend_dev_buffer_type(dev), ggml_backend_dev_host_buffer_type(dev)}) {
      if (!buft) continue;
      known.emplace_back(ggml_backend_buft_name(buft));
      if (known.back() == name) return buft;
    }
  }
  throw UserError(fmt::format("-ot: unknown buffer type '{}'", name),
                  fmt::format("one of this build's: {}", fmt::join(known, ", ")),
                  "use CPU, or a device buffer in a build with that backend");
}

}  // namespace

// The plan gives ik_llama.cpp's switches to engines of that kind only; this
// guards other callers.
void refuse_knobs(const EngineKnobs& k) {
  if (k.any())
    throw UserError(fmt::format("{} is an ik_llama.cpp setting; this engine is mainline llama.cpp",
                                first_knob_flag(k)),
                    "ik_llama.cpp's switches on an ik_llama.cpp engine only", "drop it");
}

Model::Model(const ModelLoadParams& p) {
  refuse_knobs(p.knobs);
  init_engine_backends();
  check_gguf_file(p.path);
  if (p.numa != "disabled") {
    llama_numa_init(p.numa == "distribute" ? GGML_NUMA_STRATEGY_DISTRIBUTE
                    : p.numa == "isolate"  ? GGML_NUMA_STRATEGY_ISOLATE
                                           : GGML_NUMA_STRATEGY_NUMACTL);
  }
  llama_model_params mp = llama_model_default_params();
  api::set_gpu_layers(mp, p.n_gpu_layers);
  api::set_load_mode(mp, p.load_mode);  // names checked by the spec
  std::vector<api::TensorOverride> overrides;
  for (const std::string& ot : p.tensor_overrides) {
    const size_t eq = ot.rfind('=');
    overrides.push_back({ot.substr(0, eq), find_buffer_type(ot.substr(eq + 1))});
  }
  for (int il = 0; il < p.n_cpu_moe; ++il)  // llama.cpp's --n-cpu-moe
    overrides.push_back(
        {fmt::format("blk\\.{}\\.ffn_(up|down|gate|gate_up)_(ch|)exps", il), cpu_buffer_type()});
  const std::shared_ptr<void> override_rows = api::set_tensor_overrides(mp, overrides);
  model_ = api::load_model(p.path, mp);
  if (!model_) {
    throw UserError(fmt::format("the engine could not load '{}'", p.path),
                    "a complete GGUF of an architecture this engine knows",
                    "the file may be truncated or corrupt (compare its sha256), or from a newer "
                    "engine; MOESWEEP_ENGINE_LOG=info shows the engine's reason");
  }
  facts_ = model_facts_of(model_, p.path);
  facts_.n_layer = api::n_layer(model_);
  facts_.n_vocab = api::n_vocab(model_);
  facts_.n_ctx_train = api::n_ctx_train(model_);
}

Model::~Model() {
  if (model_) api::free_model(model_);
}

}  // namespace moesweep::worker
