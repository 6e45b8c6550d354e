// A topology read back from `moesweep hw --json`'s "topology" object: how a
// machine we cannot run on (a 16-CCD EPYC, a unified-L3 Xeon) is recorded
// for the L3-domain model and its tests. Typed and bounded: the file is data.
#include <fmt/format.h>

#include "hw/topology.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"
#include "util/parse_list.hpp"

namespace moesweep {
namespace {

constexpr size_t kMaxDomains = 1024;

std::vector<int> cpu_list(const nlohmann::json& j, const char* key, const std::string& origin) {
  std::vector<int> out;
  for (int64_t c : parse_int_list(require_field<std::string>(j, key, origin), origin + " " + key))
    out.push_back(static_cast<int>(c));
  return out;
}

const nlohmann::json& bounded_array(const nlohmann::json& j, const char* key,
                                    const std::string& origin) {
  static const nlohmann::json empty = nlohmann::json::array();
  if (!j.contains(key)) return empty;
  if (!j[key].is_array() || j[key].size() > kMaxDomains)
    throw UserError(fmt::format("{}: '{}' is not an array of at most {}", origin, key, kMaxDomains),
                    "the \"topology\" object of `moesweep hw --json`", "record it again");
  return j[key];
}

}  // namespace

Topology topology_from_json(const nlohmann::json& j, const std::string& origin) {
  if (!j.is_object())
    throw UserError(origin + " is not a JSON object",
                    "the \"topology\" object of `moesweep hw --json`", "record it again");
  Topology t;
  t.sockets = optional_field<int>(j, "sockets", 1, origin);
  t.cores = require_field<int>(j, "cores", origin);
  t.pus = optional_field<int>(j, "logical_cpus", t.cores, origin);
  t.smt_active = optional_field<bool>(j, "smt_active", false, origin);
  t.memory_bytes = static_cast<uint64_t>(
      std::max<int64_t>(0, optional_field<int64_t>(j, "memory_bytes", 0, origin)));
  for (const nlohmann::json& d : bounded_array(j, "l3_domains", origin)) {
    const int64_t bytes = require_field<int64_t>(d, "size_bytes", origin);
    if (bytes <= 0)
      throw UserError(origin + ": an L3 domain has no size", "size_bytes > 0", "fix the file");
    t.l3_domains.push_back({static_cast<uint64_t>(bytes), cpu_list(d, "cpus", origin)});
  }
  for (const nlohmann::json& c : bounded_array(j, "spread_cpus", origin)) {
    if (!c.is_number_integer())
      throw UserError(origin + ": spread_cpus holds a non-integer", "CPU numbers", "fix the file");
    t.spread_cpus.push_back(c.get<int>());
  }
  return t;
}

}  // namespace moesweep
