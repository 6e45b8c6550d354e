#include "hw/hardware_profile.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>

#include "util/error.hpp"
#include "util/json_fields.hpp"
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

// Every figure within what a machine can have: a power of 1e308 W or a price
// of -5 is a broken file, not a machine to predict for.
HardwareProfile from_json(const nlohmann::json& j, const std::string& name,
                          const std::string& origin) {
  const JsonFields f(j, origin);
  HardwareProfile p;
  p.name = name;
  p.description = f.text("description");
  p.cpu_model_match = f.texts("cpu_model_match");
  p.cores = static_cast<int>(f.integer("cores", 0, 1 << 20, 0));
  p.sockets = static_cast<int>(f.integer("sockets", 1, 1024, 1));
  const JsonFields l3 = f.object("l3");
  p.l3_domains = static_cast<int>(l3.integer("domains", 0, 1 << 16, 0));
  p.l3_bytes_per_domain = l3.unsigned_integer("bytes_per_domain", 1ull << 40, 0);
  const JsonFields m = f.object("memory");
  p.memory_type = m.text("type");
  p.memory_mt_s = static_cast<int>(m.integer("mt_s", 0, 1 << 20, 0));
  p.memory_channels = static_cast<int>(m.integer("channels", 0, 1 << 16, 0));
  p.channel_bytes = static_cast<int>(m.integer("channel_bytes", 1, 1024, 8));
  p.memory_bandwidth_gbps = m.number("bandwidth_gbps", 0, 1e7, 0);
  p.kind = f.text("kind", "cpu");
  p.price_usd = f.number("price_usd", 0, 1e9, 0);
  p.price_source = f.text("price_source");
  p.price_date = f.text("price_date");
  p.power_w = f.number("power_w", 0, 1e6, 0);
  p.power_source = f.text("power_source");
  check_cost_fields(p, origin);
  p.peak_gflops = f.number("peak_gflops", 0, 1e12, 0);
  p.memory_gb = f.number("memory_gb", 0, 1e9, 0);
  if (j.contains("reference_runs")) p.reference_runs = f.array("reference_runs");
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
