#include "serve/length_dist.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "serve/arrival_schedule.hpp"
#include "util/error.hpp"
#include "util/json_fields.hpp"

namespace moesweep {

int LengthDist::draw(uint64_t seed, uint64_t index) const {
  if (dist == "fixed" || min == max) return min;
  // One stream per request: the seed and the index mixed (splitmix64's constants).
  SeededDraws d(seed * 0x9E3779B97F4A7C15ull + index * 0xBF58476D1CE4E5B9ull + 1);
  double v = dist == "uniform" ? min + d.uniform() * (max - min + 1)
                               : median * std::exp(sigma * d.normal());
  return static_cast<int>(std::clamp(std::floor(v), double(min), double(max)));
}

nlohmann::json LengthDist::to_json() const {
  if (dist == "fixed") return min;
  nlohmann::json j = {{"dist", dist}, {"min", min}, {"max", max}};
  if (dist == "lognormal") {
    j["median"] = median;
    j["sigma"] = sigma;
  }
  return j;
}

LengthDist read_length_dist(const nlohmann::json& workload, const char* key, int lo, int hi,
                            int fallback, const std::string& origin) {
  LengthDist d;
  d.min = d.max = fallback;
  if (!workload.contains(key)) return d;
  const nlohmann::json& v = workload[key];
  const auto bad = [&](const std::string& what) {
    throw UserError(fmt::format("{}: \"{}\" {}", origin, key, what),
                    fmt::format("a length from {} to {}, or {{\"dist\": \"uniform\", \"min\": "
                                "A, \"max\": B}} or {{\"dist\": \"lognormal\", \"median\": M, "
                                "\"sigma\": S, \"min\": A, \"max\": B}}",
                                lo, hi),
                    fmt::format("fix \"{}\" in {}", key, origin));
  };
  if (v.is_number_integer()) {
    if (v.get<int64_t>() < lo || v.get<int64_t>() > hi) bad(fmt::format("is {}", v.dump()));
    d.min = d.max = static_cast<int>(v.get<int64_t>());
    return d;
  }
  if (!v.is_object()) bad("is neither a number nor an object");
  const JsonFields f(v, origin, key);
  d.dist = f.text("dist", "fixed");
  if (d.dist != "uniform" && d.dist != "lognormal") bad(fmt::format("has dist '{}'", d.dist));
  d.min = static_cast<int>(f.integer("min", lo, hi, lo));
  d.max = static_cast<int>(f.integer("max", lo, hi, hi));
  if (d.min > d.max) bad(fmt::format("has min {} above max {}", d.min, d.max));
  if (d.dist == "lognormal") {
    if (!f.has("median") || !f.has("max")) bad("is lognormal without \"median\" and \"max\"");
    d.median = f.number("median", 1, hi, 1);
    d.sigma = f.number("sigma", 0, 4, 0.5);
  }
  return d;
}

}  // namespace moesweep
