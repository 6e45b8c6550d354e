#pragma once
// What a CPU's data sheet says (profiles/hardware/<name>.json): cores, L3
// layout, memory channels and speed, hence the theoretical bandwidth that the
// seeds reason with ("12 channels of DDR5-6400 = 614 GB/s"). Matched to the
// running CPU by model name; `generic` when nothing matches.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace moesweep {

struct HardwareProfile {
  std::string name;  // file stem, e.g. epyc-9175f
  std::string description;
  std::vector<std::string> cpu_model_match;  // substrings of /proc/cpuinfo "model name"
  int cores = 0;
  int sockets = 1;
  int l3_domains = 0;
  uint64_t l3_bytes_per_domain = 0;
  std::string memory_type;  // DDR5
  int memory_mt_s = 0;      // mega-transfers per second per channel
  int memory_channels = 0;  // per machine (all sockets)
  int channel_bytes = 8;    // 64-bit channels
  double peak_gflops = 0;   // dense FP32 FMA peak, all cores; 0 when unknown
  double memory_gb = 0;     // RAM of the described machine (1e9 bytes); 0 when unknown
  // The data sheet's bandwidth when it is no channels x MT/s product (HBM of
  // a GPU box); 0: computed from the channels.
  double memory_bandwidth_gbps = 0;
  std::string kind = "cpu";  // cpu, or gpu (a GPU box: seed 000's other side)
  // Cost and power (issue 23), each with where the figure comes from; 0: no
  // public figure, and nothing is computed from it.
  double price_usd = 0;  // the whole system
  std::string price_source, price_date;
  double power_w = 0;  // typical under load (see power_source for what it covers)
  std::string power_source;
  // Measured runs shipped as data to calibrate predictions (the seeds' tables).
  nlohmann::json reference_runs = nlohmann::json::array();

  // memory_bandwidth_gbps when given, else channels x MT/s x bytes per
  // transfer, in 1e9 bytes/s; 0 when unknown.
  double theoretical_bandwidth_gbps() const;
  uint64_t l3_total_bytes() const {
    return l3_bytes_per_domain * static_cast<uint64_t>(l3_domains);
  }
};

HardwareProfile load_hardware_profile(const std::string& name_or_path);
std::vector<std::string> hardware_profile_names();
// The profile whose cpu_model_match names the running CPU, else `generic`.
HardwareProfile match_hardware_profile(const std::string& cpu_model_name);
nlohmann::json to_json(const HardwareProfile& p);

}  // namespace moesweep
