#include "results/machine_class.hpp"

#include <fmt/format.h>

#include <cctype>

#include "results/run_meta.hpp"
#include "util/hash.hpp"
#include "util/json_fields.hpp"

namespace moesweep {
namespace {

std::string vendor_short(const std::string& vendor) {
  if (vendor == "AuthenticAMD") return "amd";
  if (vendor == "GenuineIntel") return "intel";
  std::string out;
  for (char ch : vendor)
    if (std::isalnum(static_cast<unsigned char>(ch)))
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out.empty() ? "unknown" : out;
}

std::string l3_text(const std::optional<uint64_t>& bytes) {
  if (!bytes) return "na";
  if (*bytes == 0) return "0";  // a VM that hides its caches
  if (*bytes % (1ull << 20) == 0) return fmt::format("{}m", *bytes >> 20);
  return fmt::format("{}k", *bytes >> 10);
}

std::string l3_human(const std::optional<uint64_t>& bytes) {
  if (!bytes) return "not recorded";
  if (*bytes == 0) return "none visible";
  return fmt::format("{:.4g} MiB", static_cast<double>(*bytes) / (1 << 20));
}

}  // namespace

MachineClass machine_class_from_build(const BuildFacts& build, std::optional<uint64_t> l3_bytes) {
  MachineClass c;
  c.known = !build.cpu.vendor.empty() || build.cpu.logical_cpus > 0;  // a build without its CPU
  if (!c.known) return c;
  c.vendor = build.cpu.vendor;
  c.family = build.cpu.family;
  c.model = build.cpu.model;
  c.logical_cpus = build.cpu.logical_cpus;
  c.features.insert(build.cpu_features.begin(), build.cpu_features.end());
  c.l3_bytes = l3_bytes;
  return c;
}

MachineClass machine_class_from_build(const nlohmann::json& build, uint64_t l3_bytes) {
  return machine_class_from_build(build_facts_from_json(build, "this build's facts"), l3_bytes);
}

MachineClass machine_class_from_json(const nlohmann::json& j, const std::string& origin) {
  const JsonFields f(j, origin, "machine_class");
  MachineClass c;
  c.known = true;
  c.vendor = f.text("vendor");
  c.family = static_cast<int>(f.integer("family", 0, 0xffff, 0));
  c.model = static_cast<int>(f.integer("model", 0, 0xffff, 0));
  c.logical_cpus = static_cast<int>(f.integer("logical_cpus", 0, 1 << 20, 0));
  if (f.has("l3_bytes")) c.l3_bytes = f.unsigned_integer("l3_bytes", uint64_t{1} << 50, 0);
  for (const std::string& feature : f.texts("cpu_features")) c.features.insert(feature);
  f.text("engine_commit");  // runs before issue 19 kept the engine in the class: read, not used
  f.text("id");  // written from the facts (machine_class_id); read only as a check of its type
  return c;
}

std::string machine_class_id(const MachineClass& c) {
  if (!c.known) return "unknown";
  std::string hashed;
  for (const auto& f : c.features) hashed += f + ",";  // std::set: sorted, order-free
  hashed += "|";
  return fmt::format("{}-{}-{}-{}cpu-l3_{}-{:08x}", vendor_short(c.vendor), c.family, c.model,
                     c.logical_cpus, l3_text(c.l3_bytes), fnv1a64(hashed) & 0xffffffffULL);
}

nlohmann::json to_json(const MachineClass& c) {
  nlohmann::json j = {{"id", machine_class_id(c)},
                      {"vendor", c.vendor},
                      {"family", c.family},
                      {"model", c.model},
                      {"logical_cpus", c.logical_cpus},
                      {"l3_bytes", nullptr},
                      {"cpu_features", c.features}};
  if (c.l3_bytes) j["l3_bytes"] = *c.l3_bytes;
  return j;
}

std::string feature_set_difference(const std::set<std::string>& base,
                                   const std::set<std::string>& fresh) {
  std::string out;
  for (const auto& f : base)
    if (!fresh.count(f)) out += (out.empty() ? "-" : " -") + f;
  for (const auto& f : fresh)
    if (!base.count(f)) out += (out.empty() ? "+" : " +") + f;
  return out;
}

std::vector<std::string> machine_class_differences(const MachineClass& a, const MachineClass& b) {
  std::vector<std::string> out;
  if (!a.known || !b.known) return out;
  auto differ = [&out](const char* what, const auto& x, const auto& y) {
    if (x != y) out.push_back(fmt::format("{}: {} -> {}", what, x, y));
  };
  differ("CPU vendor", a.vendor, b.vendor);
  differ("CPU family", a.family, b.family);
  differ("CPU model", a.model, b.model);
  differ("logical CPUs", a.logical_cpus, b.logical_cpus);
  if (a.l3_bytes && b.l3_bytes) differ("L3", l3_human(a.l3_bytes), l3_human(b.l3_bytes));
  const std::string features = feature_set_difference(a.features, b.features);
  if (!features.empty()) out.push_back("build CPU features: " + features);
  return out;
}

}  // namespace moesweep
