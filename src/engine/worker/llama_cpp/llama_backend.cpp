#include "engine/worker/llama_backend.hpp"
#include "engine/worker/llama_cpp/llama_api.hpp"
#include "engine/worker/llama_cpp/threadpool_api.hpp"

#include <dlfcn.h>
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
#include "util/cpuinfo.hpp"
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

// ggml's AMX kernels faulted in an Intel KVM guest when compiled in
// (cmake/EngineAmx.cmake), and a prebuilt package's AMX variant
// (libggml-cpu-sapphirerapids.so) aborts there too: every context of the tiny
// twin hit GGML_ASSERT(*cur_backend_id != -1) in ggml_backend_sched (v0.4.0,
// a Xeon KVM guest with amx_tile, December 6). So in a virtual machine that
// advertises AMX the best variant without AMX is loaded; MOESWEEP_ENGINE_AMX=ON
// keeps ggml's own choice, OFF avoids AMX anywhere (the worker's cpu_variant says which).
bool avoid_amx() {
  const char* env = std::getenv("MOESWEEP_ENGINE_AMX");
  const std::string choice = env ? env : "AUTO";
  if (choice == "ON") return false;
  if (choice == "OFF") return true;
  const CpuIdentity cpu = read_cpu_identity();
  return cpu.amx && cpu.hypervisor;
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

// A function of the CPU backend: asked of ggml's registry (what it exports
// differs by release: ggml_backend_cpu_set_threadpool never, threadpools from
// b4234), else looked up in the loaded CPU library (a per-CPU variant loaded
// at run time), else in the libraries the worker links (before b4234 the CPU
// backend is part of libggml.so), by `symbol` where the registry's name is
// not an exported function's (ggml_backend_set_n_threads is
// ggml_backend_cpu_set_n_threads).
void* cpu_symbol(const char* name, const char* symbol) {
  if (void* fn = ggml_backend_reg_get_proc_address(cpu_reg(), name)) return fn;
  name = symbol ? symbol : name;
  const std::string variant = loaded_library("libggml-cpu");
  if (!variant.empty()) {
    if (void* handle = dlopen(variant.c_str(), RTLD_NOW | RTLD_NOLOAD)) {
      void* fn = dlsym(handle, name);
      dlclose(handle);  // drops only the reference RTLD_NOLOAD added
      if (fn) return fn;
    }
  }
  return dlsym(RTLD_DEFAULT, name);
}

template <typename Fn>
Fn cpu_proc(const char* name, const char* symbol = nullptr) {
  auto fn = reinterpret_cast<Fn>(cpu_symbol(name, symbol));
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
    api::load_backends(backend_dir(), avoid_amx());
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

// A prebuilt package from 3.12.4 on names its release in the library's file
// name (libllama.v0.4.0.so) and, from 3.14.4, in its SONAME
// (libllama.b7324.so.0): the release the headers the worker was compiled with
// come from; another release behind that name could have another ABI. Both
// are checked, so a library of another release renamed to the expected name
// still says what it is. Older packages name no release (libllama.so): there
// the library must be the one in the package folder the worker was linked to.
void check_engine_library(const std::string& library, const std::string& release) {
  if (library.empty()) return;  // linked statically: built from the same tree
  const std::string versioned = fmt::format("libllama.{}.so", release);
  const std::filesystem::path path(library);
  const std::string name = path.filename().string();
  const std::string soname = soname_of(library);
  // The loader may map it by its SONAME's file (libllama.b7324.so.0, 3.14.4 and 3.15.0).
  const bool named =
      (name == versioned || name.rfind(versioned + ".", 0) == 0) && soname.rfind(versioned, 0) == 0;
  std::error_code ec;
  const bool in_package =
      std::strlen(MOESWEEP_ENGINE_LIB_DIR) > 0 && name == "libllama.so" &&
      soname == "libllama.so" &&
      std::filesystem::equivalent(path.parent_path(), MOESWEEP_ENGINE_LIB_DIR, ec);
  if (!named && !in_package) {
    throw UserError(fmt::format("the engine library '{}' (which calls itself '{}') is not release "
                                "{}, which this worker was built against",
                                library, soname, release),
                    fmt::format("{} (or libllama.so of {}) beside the worker's engine package",
                                versioned, MOESWEEP_ENGINE_LIB_DIR),
                    "run scripts/setup again (it rebuilds the worker for the package it fetched)");
  }
}

std::vector<std::string> cpu_backend_features() {
  return api::cpu_features(cpu_reg());
}

void set_quantize_buffer(llama_model_quantize_params& params, size_t bytes) {
  api::set_quantize_buffer(params, bytes);
}

const char* engine_api_variants() {
  return api::variants();
}

const ThreadpoolApi& threadpool_api() {
  static const ThreadpoolApi api = [] {
    ThreadpoolApi a;
    a.create = cpu_proc<decltype(a.create)>("ggml_threadpool_new");
    a.destroy = cpu_proc<decltype(a.destroy)>("ggml_threadpool_free");
    a.attach = cpu_proc<decltype(a.attach)>("ggml_backend_cpu_set_threadpool");
    a.set_n_threads = cpu_proc<decltype(a.set_n_threads)>("ggml_backend_set_n_threads",
                                                          "ggml_backend_cpu_set_n_threads");
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
