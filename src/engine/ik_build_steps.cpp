// `engine add NAME --ik-llama DIR`: ik_llama.cpp's own CMake builds its
// libllama and ggml as shared libraries inside the checkout (incremental on
// the next add of a changed branch; the compiler cache is keyed relative to
// the checkout, so another copy of the same source hits it too), they are
// copied into the engine's registry folder (a later `git checkout` in DIR
// does not change a registered engine), and the worker is built against the
// copies (cmake/EngineIk.cmake).
#include <fmt/format.h>

#include "engine/build_step.hpp"
#include "engine/engine_build.hpp"
#include "util/hash.hpp"

namespace moesweep {
namespace fs = std::filesystem;

fs::path ik_build_dir(const fs::path& checkout, const std::vector<std::string>& build_flags) {
  if (build_flags.empty()) return checkout / "build-moesweep";
  std::string joined;
  for (const std::string& f : build_flags) joined += f + '\n';
  // sha256: the same flags name the same folder with any compiler and library
  return checkout / ("build-moesweep-" + sha256_hex(joined).substr(0, 8));
}

std::vector<BuildStep> ik_llama_steps(const fs::path& tree, const fs::path& dir,
                                      const EngineSource& src, const std::string& jobs) {
  const fs::path ik = fs::absolute(src.ik_llama);
  const fs::path build = ik_build_dir(ik, src.build_flags);
  const fs::path lib = dir / "engine" / "lib";
  // ccache keys paths relative to the checkout (CCACHE_BASEDIR); one engine
  // add at a time builds in a checkout's build folder (flock, util-linux).
  const std::vector<std::string> env = {"flock", (ik / ".moesweep-build.lock").string(), "env",
                                        "CCACHE_BASEDIR=" + ik.string(), "CCACHE_NOHASHDIR=1"};
  std::vector<std::string> configure = env;
  configure.insert(configure.end(),
                   {"cmake", "-S", ik.string(), "-B", build.string(), "-DCMAKE_BUILD_TYPE=Release",
                    "-DBUILD_SHARED_LIBS=ON", "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_SERVER=OFF",
                    "-DLLAMA_CURL=OFF"});
  append_generator_and_launcher(configure);
  configure.insert(configure.end(), src.build_flags.begin(), src.build_flags.end());
  std::vector<std::string> compile = env;
  compile.insert(compile.end(),
                 {"cmake", "--build", build.string(), "--target", "llama", "-j", jobs});
  std::vector<std::string> worker = {"cmake",
                                     "-S",
                                     tree.string(),
                                     "-B",
                                     (dir / "build").string(),
                                     "-DCMAKE_BUILD_TYPE=Release",
                                     "-DMOESWEEP_BUILD_TESTS=OFF",
                                     "-DMOESWEEP_ENGINE_KIND=ik_llama.cpp",
                                     "-DMOESWEEP_LLAMA_DIR=" + ik.string(),
                                     "-DMOESWEEP_ENGINE_LIB_DIR=" + lib.string()};
  append_generator_and_launcher(worker);
  return {
      {fmt::format("configuring ik_llama.cpp in {}", build.string()), configure},
      {"compiling ik_llama.cpp's libllama and ggml (long the first time: its iqk kernels)",
       compile},
      {"copying its libraries into the registry", {"cmake", "-E", "make_directory", lib.string()}},
      {"copying its libraries into the registry",
       {"cmake", "-E", "copy", (build / "src" / "libllama.so").string(),
        (build / "ggml" / "src" / "libggml.so").string(), lib.string()}},
      {"configuring the worker's build (ik_llama.cpp API)", worker},
      {"compiling the worker against ik_llama.cpp",
       {"cmake", "--build", (dir / "build").string(), "--target", "moesweep-worker", "-j", jobs}},
  };
}

}  // namespace moesweep
