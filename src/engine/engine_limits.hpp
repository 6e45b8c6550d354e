#pragma once
// The pinned engine's hard limits. Past them the engine does not return an
// error: it asserts (SIGABRT) or overruns a fixed array (SIGSEGV), so moesweep
// checks every value against them before the engine sees it.
#include "ggml.h"

namespace moesweep::engine_limits {

// ggml.h: the threadpool's CPU mask and worker arrays have this many slots.
inline constexpr int kMaxThreads = GGML_MAX_N_THREADS;
// src/llama-hparams.h LLAMA_MAX_LAYERS / LLAMA_MAX_EXPERTS (an internal header
// of the engine, so mirrored here; tests/spec compares them with the source).
inline constexpr int kMaxLayers = 512;
inline constexpr int kMaxExperts = 1024;

}  // namespace moesweep::engine_limits
