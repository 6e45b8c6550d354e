#include "engine/worker/llama_backend.hpp"
#include "engine/worker/llama_cpp/threadpool_api.hpp"

#include <fmt/format.h>
#include <link.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>

#include "engine/engine_types.hpp"
#include "engine/worker/engine_log.hpp"
#include "engine/worker/loaded_library.hpp"
#include "llama.h"
#include "util/error.hpp"

namespace moesweep::worker {
namespace {

// Where the CPU backend variants are: the prebuilt package's directory, or
// MOESWEEP_ENGINE_BACKEND_DIR (another copy of it); "" for a static engine.
std::string backend_dir() {
  if (std::strlen(MOESWEEP_ENGINE_BACKEND_DIR) == 0) return "";
  const char* env = std::getenv("MOESWEEP_ENGINE_BACKEND_DIR");
  return env && *env ? env : MOESWEEP_ENGINE_BACKEND_DIR;
}

ggml_backend_reg_t cpu_reg() {
  ggml_backend_reg_t reg = ggml_backend_reg_by_name("CPU");
  if (!reg) {
    throw UserError("the engine has no CPU backend for this CPU",
                    fmt::format("a libggml-cpu-<variant>.so in '{}' that runs here", backend_dir()),
                    "reinstall the engine package (scripts/setup), or build the engine from source "
                    "(scripts/setup --engine source)");
  }
  return reg;
}

template <typename Fn>
Fn cpu_proc(const char* name) {
  auto fn = reinterpret_cast<Fn>(ggml_backend_reg_get_proc_address(cpu_reg(), name));
  if (!fn)
    throw UserError(fmt::format("the engine's CPU backend lacks {}", name),
                    "a llama.cpp CPU backend of the release the worker was built for",
                    "rebuild the worker against this engine (scripts/setup)");
  return fn;
}

// The SONAME a loaded library says it is (libllama.v0.4.0.so), "" if none.
std::string soname_of(const std::string& library) {
  struct Search {
    const std::string* path;
    std::string soname;
  } search{&library, {}};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        if (!info->dlpi_name || *s->path != info->dlpi_name) return 0;
        const ElfW(Dyn)* dyn = nullptr;
        for (int i = 0; i < info->dlpi_phnum; ++i)
          if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
        const char* strtab = nullptr;
        ElfW(Xword) soname = 0;
        bool has_soname = false;
        for (; dyn && dyn->d_tag != DT_NULL; ++dyn) {
          if (dyn->d_tag == DT_STRTAB) strtab = reinterpret_cast<const char*>(dyn->d_un.d_ptr);
          if (dyn->d_tag == DT_SONAME) soname = dyn->d_un.d_val, has_soname = true;
        }
        if (strtab && has_soname) s->soname = strtab + soname;
        return 1;
      },
      &search);
  return search.soname;
}

}  // namespace

void init_engine_backends() {
  static std::once_flag once;
  std::call_once(once, [] {
    install_engine_log();
    // Dynamic backends live beside the prebuilt libraries; a static build has
    // them registered already (and an empty directory name).
    const std::string dir = backend_dir();
    if (!dir.empty()) ggml_backend_load_all_from_path(dir.c_str());
    llama_backend_init();
  });
  cpu_reg();  // throws when none loaded
}

const char* engine_kind() {
  return "llama.cpp";
}

std::string cpu_variant() {
  const std::string lib = loaded_library("libggml-cpu-");
  if (lib.empty()) return MOESWEEP_ENGINE_STATIC_VARIANT;  // linked in: native or portable
  const size_t start = lib.rfind("libggml-cpu-") + std::strlen("libggml-cpu-");
  const size_t end = lib.find(".so", start);
  return lib.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

std::string llama_library_path() {
  return loaded_library("libllama.");
}

// A prebuilt package names its release in the library's file name
// (libllama.v0.4.0.so): the one the headers the worker was compiled with come
// from. Another release behind that name could have another ABI.
// Both the file's name and the SONAME inside it are checked: a library of
// another release renamed to the expected name still says what it is.
void check_engine_library(const std::string& library, const std::string& release) {
  if (library.empty()) return;  // linked statically: built from the same tree
  const std::string expected = fmt::format("libllama.{}.so", release);
  const std::string name = std::filesystem::path(library).filename().string();
  const std::string soname = soname_of(library);
  if (name != expected || soname != expected) {
    throw UserError(fmt::format("the engine library '{}' (which calls itself '{}') is not release "
                                "{}, which this worker was built against",
                                library, soname, release),
                    fmt::format("{} beside the worker's engine package", expected),
                    "run scripts/setup again (it rebuilds the worker for the package it fetched)");
  }
}

std::vector<std::string> cpu_backend_features() {
  std::vector<std::string> out;
  auto get = reinterpret_cast<ggml_backend_get_features_t>(
      ggml_backend_reg_get_proc_address(cpu_reg(), "ggml_backend_get_features"));
  if (!get) return out;
  for (const ggml_backend_feature* f = get(cpu_reg()); f && f->name; ++f) {
    if (std::strcmp(f->value, "1") == 0)
      out.emplace_back(f->name);
    else if (std::strcmp(f->value, "0") != 0)
      out.push_back(fmt::format("{}={}", f->name, f->value));
  }
  return out;
}

const ThreadpoolApi& threadpool_api() {
  static const ThreadpoolApi api = [] {
    ThreadpoolApi a;
    a.create = cpu_proc<decltype(a.create)>("ggml_threadpool_new");
    a.destroy = cpu_proc<decltype(a.destroy)>("ggml_threadpool_free");
    a.attach = cpu_proc<decltype(a.attach)>("ggml_backend_cpu_set_threadpool");
    a.set_n_threads = cpu_proc<decltype(a.set_n_threads)>("ggml_backend_set_n_threads");
    return a;
  }();
  return api;
}

ggml_backend_buffer_type_t cpu_buffer_type() {
  ggml_backend_dev_t dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
  if (!dev) throw EngineError("the engine has no CPU device");
  return ggml_backend_dev_buffer_type(dev);
}

}  // namespace moesweep::worker
