#include "hw/noise_profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "hw/bandwidth_probe.hpp"
#include "util/error.hpp"
#include "util/json_fields.hpp"
#include "util/json_file.hpp"
#include "util/paths.hpp"

namespace moesweep {
namespace {

constexpr uint64_t kMaxProfileFileBytes = 1 << 20;  // a profile is a few KiB
constexpr const char* kMeasureAgain =
    "run `moesweep hw --noise` again (it measures anew and replaces the file)";

// One table drives the reader and the writer of a curve point (json_fields.hpp).
const FieldRows<NoiseCurvePoint>& noise_point_rows() {
  using P = NoiseCurvePoint;
  static const FieldRows<P> rows = {
      {"tokens", &P::tokens, 1, 1 << 24},
      {"calls", &P::calls, 1, 1 << 20},
      {"gap_s", &P::gap_s, 0, 3600},
      {"samples", &P::samples, 2, 1 << 20},
      {"median_s", &P::median_s, 0, 86400},
      {"mean_tps", &P::mean_tps, 0, 1'000'000'000},
      {"cv", &P::cv, 0, 100},
  };
  return rows;
}

const FieldRows<NoiseProfile>& profile_rows() {
  using N = NoiseProfile;
  static const FieldRows<N> rows = {
      {"version", &N::version, 0, 1 << 20},
      {"machine_key", &N::machine_key},
      {"cpu_model", &N::cpu_model},
      {"measured_at", &N::measured_at},
      {"engine", &N::engine},
      {"model", &N::model},
      {"threads", &N::threads, 1, 1 << 16},
      {"depth", &N::depth, 0, 1 << 24},
      {"n_ubatch", &N::n_ubatch, 0, 1 << 24},
      {"repetitions", &N::repetitions, 0, 1 << 20},
      {"seconds", &N::seconds, 0, 1 << 24},
  };
  return rows;
}

constexpr std::pair<const char*, std::optional<double> NoiseProfile::*> kConditions[] = {
    {"load_1m", &NoiseProfile::load_1m},
    {"steal_fraction", &NoiseProfile::steal_fraction},
    {"others_fraction", &NoiseProfile::others_fraction}};

nlohmann::json curve_json(const std::vector<NoiseCurvePoint>& curve) {
  nlohmann::json out = nlohmann::json::array();
  for (const NoiseCurvePoint& p : curve) {
    nlohmann::json j = nlohmann::json::object();
    write_rows(p, noise_point_rows(), j);
    out.push_back(std::move(j));
  }
  return out;
}

std::vector<NoiseCurvePoint> curve_from(const JsonFields& f, const char* key) {
  if (f.array(key).size() > kMaxNoiseCurvePoints)
    f.fail(key, fmt::format("an array of at most {} points", kMaxNoiseCurvePoints));
  std::vector<NoiseCurvePoint> out;
  for (const JsonFields& point : f.objects(key)) {
    NoiseCurvePoint p;
    for (const char* required : {"tokens", "samples", "median_s", "mean_tps", "cv"})
      if (!point.has(required)) point.fail(required, "a number (every curve point has it)");
    read_rows(point, p, noise_point_rows());
    if (p.median_s <= 0 || p.mean_tps <= 0) point.fail("median_s", "a time and a speed above 0");
    out.push_back(p);
  }
  return out;
}

// The TG curve's points in rising length (median time).
std::vector<NoiseCurvePoint> by_time(std::vector<NoiseCurvePoint> curve) {
  std::sort(curve.begin(), curve.end(),
            [](const auto& a, const auto& b) { return a.median_s < b.median_s; });
  return curve;
}

}  // namespace

SampleTimeAdvice recommended_sample_time(const NoiseProfile& p) {
  SampleTimeAdvice a;
  const std::vector<NoiseCurvePoint> tg = by_time(p.tg);
  if (tg.size() < 2) return a;  // one length says nothing about the trend
  a.best_cv = std::min_element(tg.begin(), tg.end(), [](const auto& x, const auto& y) {
                return x.cv < y.cv;
              })->cv;
  const double plateau = std::max(a.best_cv * kCvPlateauFactor, a.best_cv + kCvPlateauPoints);
  for (size_t i = 0; i < tg.size(); ++i) {
    if (tg[i].cv > plateau) continue;
    a.seconds = tg[i].median_s;
    a.tokens = tg[i].tokens;
    a.cv = tg[i].cv;
    a.still_falling = i + 1 == tg.size();
    break;
  }
  return a;
}

std::optional<double> cv_at_seconds(const std::vector<NoiseCurvePoint>& curve, double seconds) {
  const std::vector<NoiseCurvePoint> c = by_time(curve);
  if (c.empty()) return std::nullopt;
  if (seconds <= c.front().median_s) return c.front().cv;
  for (size_t i = 1; i < c.size(); ++i) {
    if (seconds > c[i].median_s) continue;
    const double span = std::log(c[i].median_s / c[i - 1].median_s);
    const double at = span > 0 ? std::log(seconds / c[i - 1].median_s) / span : 1;
    return c[i - 1].cv + at * (c[i].cv - c[i - 1].cv);
  }
  return c.back().cv;
}

nlohmann::json to_json(const NoiseProfile& p) {
  nlohmann::json j = nlohmann::json::object();
  write_rows(p, profile_rows(), j);
  nlohmann::json conditions = nlohmann::json::object();
  for (const auto& [key, member] : kConditions)
    if (p.*member) conditions[key] = *(p.*member);
  j["conditions"] = conditions;
  j["tg"] = curve_json(p.tg);
  j["pp"] = curve_json(p.pp);
  j["gaps"] = curve_json(p.gaps);
  const SampleTimeAdvice a = recommended_sample_time(p);  // derived: not read back
  if (a.seconds > 0)
    j["recommended"] = {{"min_sample_time_s", a.seconds},
                        {"tg_tokens", a.tokens},
                        {"cv", a.cv},
                        {"best_cv", a.best_cv},
                        {"still_falling", a.still_falling}};
  return j;
}

NoiseProfile noise_profile_from_json(const nlohmann::json& j, const std::string& origin) {
  try {
    const JsonFields f(j, origin);
    NoiseProfile p;
    p.version = 0;
    read_rows(f, p, profile_rows());
    if (p.version != kNoiseProfileVersion)
      f.fail("version", fmt::format("{} (this moesweep's noise profile)", kNoiseProfileVersion));
    if (p.machine_key.empty()) f.fail("machine_key", "the machine's key");
    const JsonFields conditions = f.object("conditions");
    for (const auto& [key, member] : kConditions)
      if (conditions.has(key)) p.*member = conditions.number(key, 0, 1e6, 0);
    p.tg = curve_from(f, "tg");
    p.pp = curve_from(f, "pp");
    p.gaps = curve_from(f, "gaps");
    return p;
  } catch (const UserError& e) {
    throw UserError(e.problem(), e.expected(), kMeasureAgain);
  }
}

std::filesystem::path noise_profile_path() {
  return cache_dir() / "hw" / fmt::format("noise-v{}-{}.json", kNoiseProfileVersion, machine_key());
}

NoiseProfile read_noise_profile(const std::filesystem::path& path, const std::string& key) {
  const std::string origin = "noise profile " + path.string();
  nlohmann::json j;
  try {
    j = read_json_file(path, "noise profile", kMaxProfileFileBytes);
  } catch (const UserError& e) {
    throw UserError(e.problem(), e.expected(), kMeasureAgain);
  }
  NoiseProfile p = noise_profile_from_json(j, origin);
  if (p.machine_key != key)
    throw UserError(fmt::format("{} was measured on another machine (key {}, this one {})", origin,
                                p.machine_key, key),
                    "this machine's profile", kMeasureAgain);
  return p;
}

std::optional<NoiseProfile> load_cached_noise_profile() {
  const std::filesystem::path path = noise_profile_path();
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(path, ec))) return std::nullopt;
  return read_noise_profile(path, machine_key());
}

void save_cached_noise_profile(const NoiseProfile& p) {
  const std::filesystem::path path = noise_profile_path();
  // Only a profile that reads back is cached: one with a NaN in it would stop
  // every later sweep that reads it.
  const nlohmann::json j = to_json(p);
  try {
    (void)noise_profile_from_json(j, "the noise profile just measured");
  } catch (const UserError& e) {
    throw UserError(fmt::format("{}; it was not cached", e.problem()), e.expected(),
                    "measure again on a quieter machine, with longer samples (--noise-tg)");
  }
  std::filesystem::create_directories(path.parent_path());
  write_file_atomically(path, j.dump(2) + "\n");
}

}  // namespace moesweep
