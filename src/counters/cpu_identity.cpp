#include "counters/cpu_identity.hpp"

#include <cctype>
#include <fstream>
#include <set>

namespace moesweep::counters {

namespace {

// "node3" / "cpu17" -> true for that prefix followed by digits only.
bool numbered(const std::string& name, const std::string& prefix) {
  if (name.size() <= prefix.size() || name.rfind(prefix, 0) != 0) return false;
  for (std::size_t i = prefix.size(); i < name.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return false;
  return true;
}

std::string first_word(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string word;
  in >> word;
  return word;
}

}  // namespace

std::optional<int> numa_nodes_per_socket(const std::filesystem::path& sysfs_root) {
  namespace fs = std::filesystem;
  std::error_code ec;
  int nodes = 0;
  // Memory-only nodes (CXL, HBM) have an empty cpulist and do not count.
  for (const auto& e : fs::directory_iterator(sysfs_root / "devices/system/node", ec))
    if (numbered(e.path().filename().string(), "node") && !first_word(e.path() / "cpulist").empty())
      ++nodes;
  std::set<std::string> packages;
  for (const auto& e : fs::directory_iterator(sysfs_root / "devices/system/cpu", ec)) {
    if (!numbered(e.path().filename().string(), "cpu")) continue;
    const std::string id = first_word(e.path() / "topology/physical_package_id");
    if (!id.empty()) packages.insert(id);
  }
  if (nodes == 0 || packages.empty()) return std::nullopt;
  return (nodes + static_cast<int>(packages.size()) - 1) / static_cast<int>(packages.size());
}

}  // namespace moesweep::counters
