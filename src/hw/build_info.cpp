#include "hw/build_info.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "util/cpuinfo.hpp"

namespace moesweep {

BuildInfo build_info() {
  BuildInfo b;
  b.moesweep_version = MOESWEEP_VERSION;
  b.build_type = MOESWEEP_BUILD_TYPE;
  // clang defines __GNUC__ too (as 4.2.1), so it is asked first: the sanitizer
  // build and a clang build/ must not be recorded as an old GCC.
#if defined(__clang__)
  b.compiler =
      fmt::format("clang {}.{}.{}", __clang_major__, __clang_minor__, __clang_patchlevel__);
#else
  b.compiler = fmt::format("gcc {}.{}.{}", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#endif
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

nlohmann::json engine_json(const EngineFacts& e) {
  return {{"name", e.kind},    {"release", e.release},         {"commit", e.commit},
          {"build", e.build},  {"cpu_variant", e.cpu_variant}, {"library", e.library},
          {"worker", e.worker}};
}

nlohmann::json build_info_json(const EngineFacts& engine) {
  const BuildInfo b = build_info();
  const CpuInfo c = cpu_info();
  return {{"moesweep_version", b.moesweep_version},
          {"engine", engine_json(engine)},
          {"build_type", b.build_type},
          {"engine_target", engine.build},
          {"compiler", b.compiler},
          {"cpu_features", engine.cpu_features},
          {"system_info", engine.system_info},
          {"cpu",
           {{"model_name", c.model_name},
            {"vendor", c.vendor},
            {"family", c.family},
            {"model", c.model},
            {"logical_cpus", c.logical_cpus},
            {"hypervisor", c.hypervisor}}}};
}

std::string version_text(const EngineFacts& e) {
  const BuildInfo b = build_info();
  const CpuInfo c = cpu_info();
  return fmt::format(
      "moesweep {} ({} {})\nengine: {} {} (commit {}), {}\nengine CPU backend: {} ({})\n"
      "cpu: {} ({} logical CPUs{})\n",
      b.moesweep_version, b.build_type, b.compiler, e.kind, e.release, e.commit, e.build,
      e.cpu_variant, fmt::join(e.cpu_features, " "), c.model_name, c.logical_cpus,
      c.hypervisor ? ", virtual machine" : "");
}

}  // namespace moesweep
