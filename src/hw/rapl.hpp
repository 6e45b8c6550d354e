#pragma once
// Package energy from the kernel's powercap RAPL counters
// (/sys/class/powercap/intel-rapl:N/energy_uj; AMD Zen exposes the same
// interface). One counter per package, in microjoules, wrapping at
// max_energy_range_uj. Where they are absent (virtual machines) or unreadable
// (energy_uj is root-only since Linux 5.10, after the PLATYPUS side channel)
// the meter says so with the reason, as the counters do: never a number it
// did not read.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace moesweep {

struct RaplPackage {
  std::string name;  // "package-0"
  std::filesystem::path energy_file;
  uint64_t max_range_uj = 0;  // where the counter wraps; 0: unknown
};

class RaplMeter {
 public:
  explicit RaplMeter(std::filesystem::path powercap = "/sys/class/powercap");
  bool available() const { return unavailable_.empty(); }
  const std::string& unavailable() const { return unavailable_; }
  const std::vector<RaplPackage>& packages() const { return packages_; }
  // Every package's counter now; nullopt when one cannot be read.
  std::optional<std::vector<uint64_t>> read() const;
  // Joules between two reads, summed over the packages, each wrap counted once.
  double joules_between(const std::vector<uint64_t>& before,
                        const std::vector<uint64_t>& after) const;

 private:
  std::vector<RaplPackage> packages_;
  std::string unavailable_;
};

// Package energy of one phase over its repetitions: begin() and end() around
// each timed run (untimed reads of a few sysfs files).
class PhaseEnergy {
 public:
  explicit PhaseEnergy(const RaplMeter& meter) : meter_(meter) {}
  void begin();
  void end();
  // {"package_energy_j": J, "package_energy_j_per_token": J / tokens} or each
  // {"unavailable": why}; tokens: all the phase's timed tokens.
  nlohmann::json to_json(int64_t tokens) const;

 private:
  const RaplMeter& meter_;
  std::optional<std::vector<uint64_t>> start_;
  double joules_ = 0;
  std::string failed_;  // a read that failed midway
};

}  // namespace moesweep
