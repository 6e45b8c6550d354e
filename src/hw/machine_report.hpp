#pragma once
// `moesweep hw`'s facts about this machine: the CPU, the engine build, the
// topology, the hardware profile, and the bandwidth and cache measurements
// cached by earlier `hw --bandwidth` / `hw --cache` / `hw --noise` runs (or
// just taken).
#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "engine/engine_types.hpp"
#include "hw/bandwidth_probe.hpp"
#include "hw/build_info.hpp"
#include "hw/cache_probe.hpp"
#include "hw/hardware_profile.hpp"
#include "hw/noise_profile.hpp"
#include "hw/topology.hpp"

namespace moesweep {

struct MachineReport {
  CpuInfo cpu;
  EngineFacts engine;
  Topology topology;
  HardwareProfile profile;
  std::optional<BandwidthMeasurement> bandwidth;  // nullopt: never measured here
  std::optional<CacheProbeResult> cache;          // nullopt: never measured here
  std::optional<NoiseProfile> noise;              // nullopt: never measured here, or damaged
  std::string noise_problem;                      // why a stored profile is not usable
};

// Probes the CPU, engine and topology; the profile named `profile` (a name or
// JSON path), else the one matching the CPU; the cached measurements.
MachineReport describe_machine(const std::string& profile = "");

// `moesweep hw --json`: cpu, cpu_features, engine, topology,
// hardware_profile, and bandwidth / cache / noise when measured (noise:
// {"unavailable": why} for a damaged file).
nlohmann::json to_json(const MachineReport& r);

}  // namespace moesweep
