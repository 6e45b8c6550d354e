#pragma once
// What a result ran on: our version, the engine's release and commit, and the
// CPU features the engine was compiled for (GGML_NATIVE) and sees at run time.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace moesweep {

struct BuildInfo {
  std::string moesweep_version;
  std::string engine_release;  // e.g. v0.4.0 (from the npm package)
  std::string engine_commit;   // git commit of the engine tree
  std::string build_type;
  std::string engine_target;  // GGML_NATIVE, or the portable AVX2 engine of a carried binary
  std::string compiler;
  std::vector<std::string> cpu_features;  // AVX2, AVX512, AVX512_VNNI, ...
  std::string system_info;                // llama_print_system_info()
};

struct CpuInfo {
  std::string model_name;  // /proc/cpuinfo "model name"
  std::string vendor;
  int family = 0, model = 0;
  int logical_cpus = 0;  // online CPUs
  bool hypervisor = false;
};

BuildInfo build_info();
CpuInfo cpu_info();
nlohmann::json build_info_json();
std::string version_text();  // what `moesweep --version` prints

}  // namespace moesweep
