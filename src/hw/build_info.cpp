#include "hw/build_info.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "ggml-cpu.h"
#include "llama.h"
#include "util/cpuinfo.hpp"

namespace moesweep {

BuildInfo build_info() {
  BuildInfo b;
  b.moesweep_version = MOESWEEP_VERSION;
  b.engine_release = MOESWEEP_ENGINE_RELEASE;
  b.engine_commit = MOESWEEP_ENGINE_COMMIT;
  b.build_type = MOESWEEP_BUILD_TYPE;
  b.engine_target = MOESWEEP_ENGINE_TARGET;
  b.compiler = fmt::format("gcc {}.{}.{}", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
  const struct {
    const char* name;
    int (*has)();
  } features[] = {
      {"SSE3", ggml_cpu_has_sse3},
      {"SSSE3", ggml_cpu_has_ssse3},
      {"AVX", ggml_cpu_has_avx},
      {"AVX_VNNI", ggml_cpu_has_avx_vnni},
      {"AVX2", ggml_cpu_has_avx2},
      {"BMI2", ggml_cpu_has_bmi2},
      {"F16C", ggml_cpu_has_f16c},
      {"FMA", ggml_cpu_has_fma},
      {"AVX512", ggml_cpu_has_avx512},
      {"AVX512_VBMI", ggml_cpu_has_avx512_vbmi},
      {"AVX512_VNNI", ggml_cpu_has_avx512_vnni},
      {"AVX512_BF16", ggml_cpu_has_avx512_bf16},
      {"AMX_INT8", ggml_cpu_has_amx_int8},
      {"NEON", ggml_cpu_has_neon},
      {"DOTPROD", ggml_cpu_has_dotprod},
      {"SVE", ggml_cpu_has_sve},
      {"LLAMAFILE", ggml_cpu_has_llamafile},
  };
  for (const auto& f : features)
    if (f.has()) b.cpu_features.emplace_back(f.name);
  b.system_info = llama_print_system_info();
  return b;
}

CpuInfo cpu_info() {
  const CpuIdentity id = read_cpu_identity();
  CpuInfo c;
  c.model_name = id.model_name;
  c.vendor = id.vendor;
  c.family = std::max(id.family, 0);  // 0 when /proc/cpuinfo does not say
  c.model = std::max(id.model, 0);
  c.hypervisor = id.hypervisor;
  c.logical_cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  return c;
}

nlohmann::json build_info_json() {
  const BuildInfo b = build_info();
  const CpuInfo c = cpu_info();
  return {{"moesweep_version", b.moesweep_version},
          {"engine",
           {{"name", "llama.cpp"}, {"release", b.engine_release}, {"commit", b.engine_commit}}},
          {"build_type", b.build_type},
          {"engine_target", b.engine_target},
          {"compiler", b.compiler},
          {"cpu_features", b.cpu_features},
          {"system_info", b.system_info},
          {"cpu",
           {{"model_name", c.model_name},
            {"vendor", c.vendor},
            {"family", c.family},
            {"model", c.model},
            {"logical_cpus", c.logical_cpus},
            {"hypervisor", c.hypervisor}}}};
}

std::string version_text() {
  const BuildInfo b = build_info();
  const CpuInfo c = cpu_info();
  return fmt::format(
      "moesweep {}\nengine: llama.cpp {} (commit {})\nbuild: {} {}, {}\n"
      "cpu features: {}\ncpu: {} ({} logical CPUs{})\n",
      b.moesweep_version, b.engine_release, b.engine_commit, b.build_type, b.compiler,
      b.engine_target, fmt::join(b.cpu_features, " "), c.model_name, c.logical_cpus,
      c.hypervisor ? ", virtual machine" : "");
}

}  // namespace moesweep
