#pragma once
// What a result ran on: our version and build, the CPU, and the engine build
// (what its worker says of itself: release, commit, how it was built, the CPU
// backend variant it loaded).
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "engine/engine_types.hpp"

namespace moesweep {

struct BuildInfo {
  std::string moesweep_version;
  std::string build_type;
  std::string compiler;
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
// meta.json's "build": moesweep, the CPU, and `engine`.
nlohmann::json build_info_json(const EngineFacts& engine);
// The engine part of it (also in every record).
nlohmann::json engine_json(const EngineFacts& engine);
std::string version_text(const EngineFacts& engine);  // what `moesweep --version` prints

}  // namespace moesweep
