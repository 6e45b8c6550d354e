#include "hw/rapl.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace moesweep {
namespace {

std::optional<uint64_t> read_number(const std::filesystem::path& file) {
  std::ifstream in(file);
  uint64_t v = 0;
  if (in >> v) return v;
  return std::nullopt;
}

std::string read_word(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string w;
  in >> w;
  return w.substr(0, 64);
}

// "intel-rapl:0" (a package zone), not "intel-rapl:0:1" (its core/uncore/dram
// subzones) nor "intel-rapl-mmio:0" (the same package through MMIO on newer
// Intel parts: counting it too would double the energy).
bool is_package_zone(const std::string& dir) {
  const std::string prefix = "intel-rapl:";
  return dir.rfind(prefix, 0) == 0 && dir.find(':', prefix.size()) == std::string::npos;
}

}  // namespace

RaplMeter::RaplMeter(std::filesystem::path powercap) {
  std::error_code ec;
  std::vector<std::filesystem::path> zones;
  for (const auto& e : std::filesystem::directory_iterator(powercap, ec))
    if (is_package_zone(e.path().filename().string())) zones.push_back(e.path());
  std::sort(zones.begin(), zones.end());
  for (const auto& zone : zones) {
    const std::string name = read_word(zone / "name");
    if (name.rfind("package", 0) != 0) continue;
    packages_.push_back(
        {name, zone / "energy_uj", read_number(zone / "max_energy_range_uj").value_or(0)});
  }
  if (packages_.empty()) {
    unavailable_ = fmt::format(
        "no RAPL package zone under {} (virtual machines and containers do not expose one)",
        powercap.string());
    return;
  }
  std::ifstream probe(packages_.front().energy_file);
  uint64_t v = 0;
  if (!(probe >> v))
    unavailable_ = fmt::format(
        "{} is not readable ({}): energy_uj is root-only since Linux 5.10 (PLATYPUS); run as "
        "root or grant read access to it",
        packages_.front().energy_file.string(), errno ? std::strerror(errno) : "no number");
}

std::optional<std::vector<uint64_t>> RaplMeter::read() const {
  if (!available()) return std::nullopt;
  std::vector<uint64_t> out;
  for (const RaplPackage& p : packages_) {
    const std::optional<uint64_t> v = read_number(p.energy_file);
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

double RaplMeter::joules_between(const std::vector<uint64_t>& before,
                                 const std::vector<uint64_t>& after) const {
  double uj = 0;
  for (size_t i = 0; i < packages_.size() && i < before.size() && i < after.size(); ++i) {
    if (after[i] >= before[i])
      uj += static_cast<double>(after[i] - before[i]);
    else if (packages_[i].max_range_uj > before[i])  // wrapped once
      uj += static_cast<double>(packages_[i].max_range_uj - before[i] + after[i]);
  }
  return uj / 1e6;
}

void PhaseEnergy::begin() {
  if (meter_.available() && failed_.empty()) start_ = meter_.read();
}

void PhaseEnergy::end() {
  if (!meter_.available() || !failed_.empty()) return;
  const std::optional<std::vector<uint64_t>> now = meter_.read();
  if (!start_ || !now) {
    failed_ = "a RAPL counter could not be read during the phase";
    return;
  }
  joules_ += meter_.joules_between(*start_, *now);
  start_.reset();
}

nlohmann::json PhaseEnergy::to_json(int64_t tokens) const {
  const std::string why = !meter_.available() ? meter_.unavailable() : failed_;
  if (!why.empty()) {
    const nlohmann::json unavailable = {{"unavailable", why}};
    return {{"package_energy_j", unavailable}, {"package_energy_j_per_token", unavailable}};
  }
  return {{"package_energy_j", joules_},
          {"package_energy_j_per_token", tokens > 0
                                             ? nlohmann::json(joules_ / static_cast<double>(tokens))
                                             : nlohmann::json{{"unavailable", "no timed tokens"}}}};
}

}  // namespace moesweep
