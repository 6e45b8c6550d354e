#include "engine/worker/engine_facts.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "engine/worker/llama_backend.hpp"
#include "engine/worker_protocol.hpp"
#include "llama.h"
#include "util/error.hpp"

namespace moesweep::worker {
namespace {

// A prebuilt package names its release in the library's file name
// (libllama.v0.4.0.so): the one the headers the worker was compiled with come
// from. Another release behind that name could have another ABI.
// Both the file's name and the SONAME inside it are checked: a library of
// another release renamed to the expected name still says what it is.
void check_library_release(const std::string& library) {
  if (library.empty()) return;  // linked statically: built from the same tree
  const std::string expected = fmt::format("libllama.{}.so", MOESWEEP_ENGINE_RELEASE);
  const std::string name = std::filesystem::path(library).filename().string();
  const std::string soname = soname_of(library);
  if (name != expected || soname != expected) {
    throw UserError(fmt::format("the engine library '{}' (which calls itself '{}') is not release "
                                "{}, which this worker was built against",
                                library, soname, MOESWEEP_ENGINE_RELEASE),
                    fmt::format("{} beside the worker's engine package", expected),
                    "run scripts/setup again (it rebuilds the worker for the package it fetched)");
  }
}

}  // namespace

nlohmann::json hello_reply() {
  init_engine_backends();
  EngineFacts f;
  f.protocol = worker_protocol::kVersion;
  f.kind = "llama.cpp";
  f.release = MOESWEEP_ENGINE_RELEASE;
  f.commit = MOESWEEP_ENGINE_COMMIT;
  f.build = MOESWEEP_ENGINE_BUILD;
  f.library = llama_library_path();
  check_library_release(f.library);
  f.cpu_variant = cpu_variant();
  f.cpu_features = cpu_backend_features();
  f.system_info = llama_print_system_info();
  return {{"ok", true},
          {"protocol", worker_protocol::kVersion},
          {"engine", worker_protocol::to_json(f)}};
}

}  // namespace moesweep::worker
