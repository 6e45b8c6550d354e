#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/engine_util.hpp"
#include "util/error.hpp"
#include "util/parse_list.hpp"

namespace moesweep {

uint64_t available_memory_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024;
  return 0;
}

bool parse_cpu_mask(const std::string& text, std::vector<bool>& mask) {
  mask.clear();
  if (text.rfind("0x", 0) == 0 || text.rfind("0X", 0) == 0) {
    for (size_t i = text.size(); i-- > 2;) {
      const char c = static_cast<char>(std::tolower(text[i]));
      int nibble = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
      if (nibble < 0) return false;
      for (int b = 0; b < 4; ++b) mask.push_back((nibble >> b) & 1);
    }
    return !mask.empty();
  }
  try {
    for (int64_t cpu : parse_int_list(text, "--cpu-mask")) {
      if (cpu < 0 || cpu >= 4096) return false;
      if (mask.size() <= static_cast<size_t>(cpu)) mask.resize(cpu + 1, false);
      mask[cpu] = true;
    }
  } catch (const UserError&) {
    return false;
  }
  return !mask.empty();
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec1, ec2;
  if (std::filesystem::equivalent(a, b, ec1)) return true;
  const std::filesystem::path ca = std::filesystem::weakly_canonical(a, ec1);
  const std::filesystem::path cb = std::filesystem::weakly_canonical(b, ec2);
  return !ec1 && !ec2 && ca == cb;
}

}  // namespace moesweep
