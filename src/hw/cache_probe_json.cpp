// The stored form of `hw --cache`'s result (cache-v2-<machine>.json): read back
// field by field with types checked, since the file is ours but untrusted.
#include <fmt/format.h>

#include <algorithm>

#include "hw/cache_probe.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

constexpr size_t kMaxPoints = 4096;  // a probe has ~40; more is a damaged or foreign file

// A size: an integer >= 0 (json_file.hpp reads signed integers).
uint64_t size_field(const nlohmann::json& j, const char* key, const std::string& origin,
                    bool required = false) {
  const int64_t v = required ? require_field<int64_t>(j, key, origin)
                             : optional_field<int64_t>(j, key, 0, origin);
  if (v < 0)
    throw UserError(fmt::format("{}: '{}' is negative ({})", origin, key, v), "a size in bytes",
                    "run `moesweep hw --cache` again");
  return static_cast<uint64_t>(v);
}

nlohmann::json knees_json(const std::vector<CacheKnee>& knees) {
  nlohmann::json out = nlohmann::json::array();
  for (const CacheKnee& k : knees)
    out.push_back({{"bytes", k.bytes},
                   {"before", k.before},
                   {"after", k.after},
                   {"before_bytes", k.before_bytes}});
  return out;
}

const nlohmann::json& array_field(const nlohmann::json& j, const char* key,
                                  const std::string& origin) {
  static const nlohmann::json empty = nlohmann::json::array();
  if (!j.contains(key)) return empty;
  const nlohmann::json& a = j.at(key);
  if (!a.is_array() || a.size() > kMaxPoints)
    throw UserError(
        fmt::format("{}: '{}' is not an array of at most {} entries", origin, key, kMaxPoints),
        "the file `moesweep hw --cache` writes", "run `moesweep hw --cache` again");
  return a;
}

std::vector<CacheKnee> knees_from(const nlohmann::json& j, const char* key,
                                  const std::string& origin) {
  std::vector<CacheKnee> out;
  for (const nlohmann::json& k : array_field(j, key, origin)) {
    if (!k.is_object())
      throw UserError(origin + ": a knee is not an object", "{bytes, ...}",
                      "run `moesweep hw --cache` again");
    out.push_back({size_field(k, "bytes", origin, true), require_field<double>(k, "before", origin),
                   require_field<double>(k, "after", origin),
                   size_field(k, "before_bytes", origin)});
  }
  return out;
}

}  // namespace

nlohmann::json to_json(const CacheProbeResult& r) {
  nlohmann::json points = nlohmann::json::array();
  for (const CacheProbePoint& p : r.points)
    points.push_back({{"bytes", p.bytes},
                      {"latency_ns", p.latency_ns},
                      {"latency_ns_all", p.latency_ns_all},
                      {"gbps", p.gbps},
                      {"gbps_all", p.gbps_all}});
  nlohmann::json gemv = nlohmann::json::array();
  for (const GemvProbePoint& g : r.gemv)
    gemv.push_back({{"pool_bytes", g.pool_bytes}, {"gbps", g.gbps}, {"gbps_all", g.gbps_all}});
  const ExpertGemvShape& s = r.gemv_shape;
  return {{"machine_key", r.machine_key},
          {"cpu_model", r.cpu_model},
          {"measured_at", r.measured_at},
          {"method",
           "pointer chase (one pointer per 64-byte line, fixed random cycle, THP asked) and "
           "vector reads (the bandwidth probe's loop), best of rounds; all-threads: each thread "
           "its share"},
          {"threads", r.threads},
          {"private_cache_bytes", r.private_cache_bytes},
          {"nominal_l3_bytes", r.nominal_l3_bytes},
          {"nominal_l3_domain_bytes", r.nominal_l3_domain_bytes},
          {"effective_l3_bytes", r.effective_l3_bytes},
          {"effective_l3_bytes_all", r.effective_l3_bytes_all},
          {"huge_page_share", r.huge_page_share},
          {"knees",
           {{"latency", knees_json(r.knees.latency)},
            {"latency_all", knees_json(r.knees.latency_all)},
            {"bandwidth", knees_json(r.knees.bandwidth)},
            {"bandwidth_all", knees_json(r.knees.bandwidth_all)}}},
          {"points", points},
          {"gemv",
           {{"type", s.type},
            {"hidden", s.hidden},
            {"rows", s.rows},
            {"used", s.used},
            {"layers", s.layers},
            {"points", gemv}}}};
}

// The kernel-level side: the expert GEMV against its pool (hw --cache), its
// knee and its drop from the best in-cache pool to the largest.
nlohmann::json kernel_summary_json(const CacheProbeResult& probe) {
  nlohmann::json j = {{"effective_l3_bytes", probe.effective_l3_bytes},
                      {"effective_l3_bytes_all", probe.effective_l3_bytes_all},
                      {"nominal_l3_bytes", probe.nominal_l3_bytes},
                      {"measured_at", probe.measured_at},
                      {"threads", probe.threads}};
  for (bool all : {false, true}) {
    std::vector<CurveSample> curve;
    double in = 0;
    for (const GemvProbePoint& p : probe.gemv) {
      const double g = all ? p.gbps_all : p.gbps;
      if (g <= 0) continue;
      curve.push_back({p.pool_bytes, g});
      if (p.pool_bytes * 2 <= probe.effective_l3_bytes || curve.size() == 1) in = std::max(in, g);
    }
    if (curve.size() < 2) continue;
    nlohmann::json k = {{"in_cache_gbps", in},
                        {"out_of_cache_gbps", curve.back().value},
                        {"drop", in > 0 ? 1 - curve.back().value / in : 0}};
    for (const CacheKnee& knee : find_knees(curve, false)) k["knees_bytes"].push_back(knee.bytes);
    j[all ? "gemv_all_threads" : "gemv_1_thread"] = k;
  }
  return j;
}

CacheProbeResult cache_probe_from_json(const nlohmann::json& j, const std::string& origin) {
  if (!j.is_object())
    throw UserError(origin + " is not a JSON object", "the file `moesweep hw --cache` writes",
                    "run `moesweep hw --cache` again");
  CacheProbeResult r;
  r.machine_key = require_field<std::string>(j, "machine_key", origin);
  r.cpu_model = optional_field<std::string>(j, "cpu_model", "", origin);
  r.measured_at = optional_field<std::string>(j, "measured_at", "", origin);
  r.threads = optional_field<int>(j, "threads", 1, origin);
  r.private_cache_bytes = size_field(j, "private_cache_bytes", origin);
  r.nominal_l3_bytes = size_field(j, "nominal_l3_bytes", origin);
  r.nominal_l3_domain_bytes = size_field(j, "nominal_l3_domain_bytes", origin);
  r.effective_l3_bytes = size_field(j, "effective_l3_bytes", origin, true);
  r.effective_l3_bytes_all = size_field(j, "effective_l3_bytes_all", origin);
  r.huge_page_share = optional_field<double>(j, "huge_page_share", 0, origin);
  for (const nlohmann::json& p : array_field(j, "points", origin)) {
    if (!p.is_object())
      throw UserError(origin + ": a point is not an object", "{bytes, ...}",
                      "run `moesweep hw --cache` again");
    r.points.push_back({size_field(p, "bytes", origin, true),
                        require_field<double>(p, "latency_ns", origin),
                        optional_field<double>(p, "latency_ns_all", 0, origin),
                        optional_field<double>(p, "gbps", 0, origin),
                        optional_field<double>(p, "gbps_all", 0, origin)});
  }
  if (j.contains("gemv") && j["gemv"].is_object()) {
    const nlohmann::json& g = j["gemv"];
    r.gemv_shape.type = require_field<std::string>(g, "type", origin);
    r.gemv_shape.hidden = require_field<int64_t>(g, "hidden", origin);
    r.gemv_shape.rows = require_field<int64_t>(g, "rows", origin);
    r.gemv_shape.used = require_field<int>(g, "used", origin);
    r.gemv_shape.layers = require_field<int>(g, "layers", origin);
    for (const nlohmann::json& p : array_field(g, "points", origin)) {
      if (!p.is_object())
        throw UserError(origin + ": a GEMV point is not an object", "{pool_bytes, gbps, gbps_all}",
                        "run `moesweep hw --cache` again");
      r.gemv.push_back({size_field(p, "pool_bytes", origin, true),
                        require_field<double>(p, "gbps", origin),
                        optional_field<double>(p, "gbps_all", 0, origin)});
    }
  }
  if (j.contains("knees") && j["knees"].is_object()) {
    const nlohmann::json& k = j["knees"];
    r.knees = {knees_from(k, "latency", origin), knees_from(k, "latency_all", origin),
               knees_from(k, "bandwidth", origin), knees_from(k, "bandwidth_all", origin)};
  }
  return r;
}

}  // namespace moesweep
