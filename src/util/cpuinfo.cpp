#include "util/cpuinfo.hpp"

#include <fstream>

namespace moesweep {

CpuIdentity read_cpu_identity(const std::filesystem::path& cpuinfo) {
  CpuIdentity id;
  std::ifstream in(cpuinfo);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) break;  // end of the first processor block
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
    std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (key == "vendor_id")
      id.vendor = value;
    else if (key == "cpu family")
      id.family = std::stoi(value);
    else if (key == "model")
      id.model = std::stoi(value);
    else if (key == "model name")
      id.model_name = value;
    else if (key == "flags") {
      id.hypervisor = (" " + value + " ").find(" hypervisor ") != std::string::npos;
      id.amx = (" " + value + " ").find(" amx_tile ") != std::string::npos;
    }
  }
  return id;
}

}  // namespace moesweep
