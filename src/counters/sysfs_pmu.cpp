#include "counters/sysfs_pmu.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace moesweep::counters {
namespace fs = std::filesystem;

namespace {

std::string read_trimmed(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return {};
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  return s;
}

int parse_bit(const std::string& text, const std::string& whole) {
  if (text.empty() || !std::all_of(text.begin(), text.end(), ::isdigit))
    throw std::invalid_argument(fmt::format("bad bit number '{}' in format '{}'", text, whole));
  const int bit = std::stoi(text);
  if (bit > 63) throw std::invalid_argument(fmt::format("bit {} > 63 in format '{}'", bit, whole));
  return bit;
}

std::uint64_t* word_of(RawConfig& raw, const std::string& word) {
  if (word == "config") return &raw.config;
  if (word == "config1") return &raw.config1;
  if (word == "config2") return &raw.config2;
  return nullptr;
}

}  // namespace

int FieldFormat::width() const {
  int w = 0;
  for (const auto& [lo, hi] : ranges) w += hi - lo + 1;
  return w;
}

FieldFormat parse_field_format(const std::string& text) {
  const auto colon = text.find(':');
  if (colon == std::string::npos)
    throw std::invalid_argument(fmt::format("format '{}' has no ':'", text));
  FieldFormat f;
  f.word = text.substr(0, colon);
  RawConfig probe;
  if (!word_of(probe, f.word))
    throw std::invalid_argument(fmt::format("format '{}' targets unknown word '{}'", text, f.word));
  std::stringstream parts(text.substr(colon + 1));
  std::string part;
  while (std::getline(parts, part, ',')) {
    const auto dash = part.find('-');
    const int lo = parse_bit(part.substr(0, dash), text);
    const int hi = dash == std::string::npos ? lo : parse_bit(part.substr(dash + 1), text);
    if (hi < lo)
      throw std::invalid_argument(fmt::format("range {}-{} reversed in '{}'", lo, hi, text));
    f.ranges.emplace_back(lo, hi);
  }
  if (f.ranges.empty()) throw std::invalid_argument(fmt::format("format '{}' has no bits", text));
  return f;
}

RawConfig encode_raw_config(const PmuInfo& pmu,
                            const std::map<std::string, std::uint64_t>& fields) {
  RawConfig raw;
  for (const auto& [name, value] : fields) {
    const auto it = pmu.formats.find(name);
    if (it == pmu.formats.end())
      throw std::invalid_argument(fmt::format("PMU {} has no format field '{}'", pmu.name, name));
    const FieldFormat& f = it->second;
    if (f.width() < 64 && (value >> f.width()) != 0)
      throw std::invalid_argument(fmt::format("value {:#x} does not fit {}'s {}-bit field '{}'",
                                              value, pmu.name, f.width(), name));
    // The value's bits fill the ranges in order, low bits into the first range.
    std::uint64_t rest = value;
    std::uint64_t* word = word_of(raw, f.word);
    for (const auto& [lo, hi] : f.ranges) {
      const int n = hi - lo + 1;
      const std::uint64_t mask = n == 64 ? ~0ULL : ((1ULL << n) - 1);
      *word |= (rest & mask) << lo;
      rest = n == 64 ? 0 : rest >> n;
    }
  }
  return raw;
}

std::vector<int> parse_cpu_list(const std::string& text) {
  std::vector<int> cpus;
  std::stringstream parts(text);
  std::string part;
  while (std::getline(parts, part, ',')) {
    if (part.empty()) continue;
    const auto dash = part.find('-');
    const int lo = std::stoi(part.substr(0, dash));
    const int hi = dash == std::string::npos ? lo : std::stoi(part.substr(dash + 1));
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
  }
  return cpus;
}

SysfsPmus::SysfsPmus(fs::path root) : root_(std::move(root)) {}

fs::path SysfsPmus::devices_dir() const {
  return root_ / "bus" / "event_source" / "devices";
}

std::vector<std::string> SysfsPmus::names() const {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(devices_dir(), ec))
    out.push_back(entry.path().filename());
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<PmuInfo> SysfsPmus::find(const std::string& name) const {
  const fs::path dir = devices_dir() / name;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return std::nullopt;
  PmuInfo pmu;
  pmu.name = name;
  if (const std::string type = read_trimmed(dir / "type"); !type.empty())
    pmu.type = static_cast<std::uint32_t>(std::stoul(type));
  pmu.cpumask = parse_cpu_list(read_trimmed(dir / "cpumask"));
  for (const auto& entry : fs::directory_iterator(dir / "format", ec)) {
    const std::string text = read_trimmed(entry.path());
    pmu.formats.emplace(entry.path().filename().string(), parse_field_format(text));
  }
  return pmu;
}

std::vector<PmuInfo> SysfsPmus::match(const std::string& pattern) const {
  std::vector<PmuInfo> out;
  const auto star = pattern.find('*');
  if (star == std::string::npos) {
    if (auto pmu = find(pattern)) out.push_back(*pmu);
    return out;
  }
  const std::string prefix = pattern.substr(0, star);
  for (const std::string& name : names()) {
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string suffix = name.substr(prefix.size());
    // amd_umc_* must match amd_umc_0 but not a hypothetical amd_umc_foo.
    if (suffix.empty() || !std::all_of(suffix.begin(), suffix.end(), ::isdigit)) continue;
    if (auto pmu = find(name)) out.push_back(*pmu);
  }
  std::sort(out.begin(), out.end(), [](const PmuInfo& a, const PmuInfo& b) {
    return a.name.size() != b.name.size() ? a.name.size() < b.name.size() : a.name < b.name;
  });
  return out;
}

}  // namespace moesweep::counters
