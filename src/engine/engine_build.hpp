#pragma once
// `moesweep engine add`: builds a worker (tools/moesweep-worker) against
// another engine build and registers it (engine/engine_registry.hpp). The
// worker is built by this moesweep's own source tree (CMake, target
// moesweep-worker only), so every engine speaks the same protocol and is
// timed by the same code:
//  - a release from the npm registry (scripts/engine-fetch, pinned by sha256
//    in profiles/engines/node-llama-cpp.json): its prebuilt libraries, or its
//    source compiled natively (from_source);
//  - a llama.cpp checkout on disk (a PR branch): compiled natively, statically;
//  - an ik_llama.cpp checkout: its own build's shared libraries, copied into
//    the registry, and a worker built against its API (engine/ik_build_steps.cpp);
//  - another program's llama-sweep-bench or llama-bench binary (exec): nothing
//    is built; a sweep runs it and ingests its output (engine/exec_tool.hpp).
// Extra CMake flags (-DGGML_AVX512=OFF, ...) reach that build and are recorded.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "engine/engine_registry.hpp"

namespace moesweep {

struct EngineSource {
  std::string release;                   // a package version: 3.22.1 (llama.cpp v0.5.0)
  bool from_source = false;              // compile the release instead of its prebuilt libraries
  std::filesystem::path llama_cpp;       // a checkout
  std::filesystem::path ik_llama;        // an ik_llama.cpp checkout
  std::filesystem::path exec;            // another program's llama-sweep-bench or llama-bench
  std::string exec_tool;                 // which of the two; "" = told by the file name
  std::vector<std::string> build_flags;  // "-DNAME=VALUE"
};

// Builds and registers `name`; returns what was registered. UserError (exit
// 2, nothing left in the registry) for a bad name, a name taken, a missing
// or unusable checkout, an unknown release or a build that fails (its log
// tail in the message). `progress` gets one line per step.
RegisteredEngine add_engine(const std::filesystem::path& registry, const std::string& name,
                            const EngineSource& source,
                            const std::function<void(const std::string&)>& progress);

// Removes a registered engine's folder. UserError when there is none.
void remove_engine(const std::filesystem::path& registry, const std::string& name);

}  // namespace moesweep
