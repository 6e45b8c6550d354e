// The expert GEMV (engine/worker/expert_gemv.hpp) is built on mainline
// ggml's backend registry and threadpools, which ik_llama.cpp's ggml does not
// have: on this engine the request fails with its reason, and `hw --cache`
// measures the kernel on the default engine.
#include "engine/worker/expert_gemv.hpp"
#include "engine/engine_types.hpp"

namespace moesweep::worker {

nlohmann::json expert_gemv_reply(const nlohmann::json&) {
  throw EngineError(
      "the expert GEMV kernel benchmark needs mainline llama.cpp's ggml (backend registry, "
      "threadpools); this worker is ik_llama.cpp: measure it on the default engine");
}

}  // namespace moesweep::worker
