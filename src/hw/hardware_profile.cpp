#include "hw/hardware_profile.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>

#include "util/error.hpp"
#include "util/json_file.hpp"
#include "util/paths.hpp"

namespace moesweep {

namespace {

std::filesystem::path hardware_dir() {
  return profiles_dir() / "hardware";
}

// A price or a power needs its source (and a price its date): a figure
// nobody can check is no figure to buy hardware by.
void check_cost_fields(const HardwareProfile& p, const std::string& origin) {
  const bool price_ok =
      p.price_usd == 0 || (p.price_usd > 0 && !p.price_source.empty() && !p.price_date.empty());
  const bool power_ok = p.power_w == 0 || (p.power_w > 0 && !p.power_source.empty());
  if (price_ok && power_ok) return;
  throw UserError(
      fmt::format("{}: {} without its source", origin, price_ok ? "power_w" : "price_usd"),
      "price_usd > 0 with price_source and price_date; power_w > 0 with power_source",
      "name where the figure comes from (a vendor page, a quote and its date), or leave it out");
}

HardwareProfile from_json(const nlohmann::json& j, const std::string& name,
                          const std::string& origin) {
  HardwareProfile p;
  p.name = name;
  p.description = optional_field<std::string>(j, "description", "", origin);
  if (j.contains("cpu_model_match"))
    p.cpu_model_match = j.at("cpu_model_match").get<std::vector<std::string>>();
  p.cores = optional_field<int>(j, "cores", 0, origin);
  p.sockets = optional_field<int>(j, "sockets", 1, origin);
  if (j.contains("l3")) {
    p.l3_domains = optional_field<int>(j.at("l3"), "domains", 0, origin);
    p.l3_bytes_per_domain =
        static_cast<uint64_t>(optional_field<int64_t>(j.at("l3"), "bytes_per_domain", 0, origin));
  }
  if (j.contains("memory")) {
    const auto& m = j.at("memory");
    p.memory_type = optional_field<std::string>(m, "type", "", origin);
    p.memory_mt_s = optional_field<int>(m, "mt_s", 0, origin);
    p.memory_channels = optional_field<int>(m, "channels", 0, origin);
    p.channel_bytes = optional_field<int>(m, "channel_bytes", 8, origin);
    p.memory_bandwidth_gbps = optional_field<double>(m, "bandwidth_gbps", 0.0, origin);
  }
  p.kind = optional_field<std::string>(j, "kind", "cpu", origin);
  p.price_usd = optional_field<double>(j, "price_usd", 0.0, origin);
  p.price_source = optional_field<std::string>(j, "price_source", "", origin);
  p.price_date = optional_field<std::string>(j, "price_date", "", origin);
  p.power_w = optional_field<double>(j, "power_w", 0.0, origin);
  p.power_source = optional_field<std::string>(j, "power_source", "", origin);
  check_cost_fields(p, origin);
  p.peak_gflops = optional_field<double>(j, "peak_gflops", 0.0, origin);
  p.memory_gb = optional_field<double>(j, "memory_gb", 0.0, origin);
  if (j.contains("reference_runs")) p.reference_runs = j.at("reference_runs");
  return p;
}

}  // namespace

double HardwareProfile::theoretical_bandwidth_gbps() const {
  if (memory_bandwidth_gbps > 0) return memory_bandwidth_gbps;
  return static_cast<double>(memory_channels) * memory_mt_s * 1e6 * channel_bytes / 1e9;
}

HardwareProfile load_hardware_profile(const std::string& name_or_path) {
  std::filesystem::path path = name_or_path;
  if (path.extension() != ".json") path = hardware_dir() / (name_or_path + ".json");
  if (!std::filesystem::exists(path)) {
    const auto names = hardware_profile_names();
    throw UserError(fmt::format("hardware profile '{}' not found", name_or_path),
                    fmt::format("one of: {}", fmt::join(names, ", ")),
                    "pick a shipped profile, or pass a path to your own JSON file");
  }
  return from_json(read_json_file(path, "hardware profile"), path.stem().string(), path.string());
}

std::vector<std::string> hardware_profile_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(hardware_dir(), ec))
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

HardwareProfile match_hardware_profile(const std::string& cpu_model_name) {
  for (const auto& name : hardware_profile_names()) {
    HardwareProfile p = load_hardware_profile(name);
    for (const auto& needle : p.cpu_model_match)
      if (!needle.empty() && cpu_model_name.find(needle) != std::string::npos) return p;
  }
  if (std::filesystem::exists(hardware_dir() / "generic.json"))
    return load_hardware_profile("generic");
  HardwareProfile generic;
  generic.name = "generic";
  generic.description = "unknown CPU: no data-sheet figures";
  return generic;
}

nlohmann::json to_json(const HardwareProfile& p) {
  nlohmann::json j = {
      {"name", p.name},
      {"description", p.description},
      {"cores", p.cores},
      {"sockets", p.sockets},
      {"l3", {{"domains", p.l3_domains}, {"bytes_per_domain", p.l3_bytes_per_domain}}},
      {"memory",
       {{"type", p.memory_type},
        {"mt_s", p.memory_mt_s},
        {"channels", p.memory_channels},
        {"channel_bytes", p.channel_bytes}}}};
  if (p.theoretical_bandwidth_gbps() > 0)
    j["theoretical_bandwidth_gbps"] = p.theoretical_bandwidth_gbps();
  if (p.peak_gflops > 0) j["peak_gflops"] = p.peak_gflops;
  if (p.memory_gb > 0) j["memory_gb"] = p.memory_gb;
  if (p.kind != "cpu") j["kind"] = p.kind;
  if (p.price_usd > 0)
    j["price"] = {{"usd", p.price_usd}, {"source", p.price_source}, {"date", p.price_date}};
  if (p.power_w > 0) j["power"] = {{"w", p.power_w}, {"source", p.power_source}};
  return j;
}

}  // namespace moesweep
