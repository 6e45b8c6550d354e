#pragma once
// The engine's backends in the worker, for each kind of engine the worker
// can be built against (one folder each, chosen by CMake's
// MOESWEEP_ENGINE_KIND):
//  - llama_cpp/: mainline llama.cpp. Backends are loaded from the prebuilt
//    package's directory when the engine was built with dynamic backends
//    (ggml's registry then picks the best CPU variant for this CPU), or
//    linked in; threads are ggml threadpools attached to the context.
//  - ik_llama/: ik_llama.cpp, whose ggml predates the backend registry:
//    one CPU backend linked in, threads set on the context (no threadpools).
#include <cstddef>
#include <string>
#include <vector>

struct llama_model_quantize_params;

namespace moesweep::worker {

// Logs, backends, llama_backend_init; once. Throws UserError when no CPU
// backend loads (a package without a variant for this CPU).
void init_engine_backends();

// "llama.cpp" or "ik_llama.cpp": which API this worker was compiled against.
const char* engine_kind();
// The CPU variant in use: "haswell", "zen4", ... for a dynamically loaded
// backend (its libggml-cpu-<variant>.so), "native"/"portable-avx2" when linked in.
std::string cpu_variant();
// The libllama file in use, "" when linked statically.
std::string llama_library_path();
// Throws UserError when the loaded libllama is not the release `release` the
// worker was compiled against (a versioned prebuilt library only).
void check_engine_library(const std::string& library, const std::string& release);
// What the CPU backend was built for (AVX2, AVX512, ...).
std::vector<std::string> cpu_backend_features();
// Dequantized rows in slabs of `bytes` while quantizing, where the engine can.
void set_quantize_buffer(llama_model_quantize_params& params, size_t bytes);
// Which spelling of each changed API the worker was built against ("" for one API only).
const char* engine_api_variants();

}  // namespace moesweep::worker
