#pragma once
// This machine's noise profile (`moesweep hw --noise`): how much the speed
// of one sample varies (its CV) against the sample's length -- decode of 16
// to 1024 tokens, prefill of 1 to 8 ubatches -- and against the pause between
// samples, measured on the default twin. Sweeps take their default
// --min-sample-time from it (sweep/sample_length.hpp): the length at which the
// CV stops falling. Cached beside `hw --bandwidth` and `hw --cache`; the file
// is ours but untrusted when read back (typed, bounded, versioned).
//
// The measurement itself runs the engine on a twin, so it lives in the sweep
// library (sweep/noise_measure.hpp); this file is the value, its file and the
// arithmetic on it.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace moesweep {

// In the file and in its name: a profile of another version is measured again.
inline constexpr int kNoiseProfileVersion = 1;
// Curve points per curve in a file: a profile has ~10; more is damaged or foreign.
inline constexpr size_t kMaxNoiseCurvePoints = 64;
// A CV within this factor of the smallest one measured (or within
// kCvPlateauPoints of it) counts as "stopped falling": with 10 samples a
// CV's own relative standard error is about 25%.
inline constexpr double kCvPlateauFactor = 1.25;
inline constexpr double kCvPlateauPoints = 0.01;

// One length (or pause) of a curve: `samples` samples of `tokens` tokens each.
struct NoiseCurvePoint {
  int tokens = 0;       // tokens per sample
  int calls = 1;        // engine calls a sample is made of (each of tokens / calls, rewound)
  double gap_s = 0;     // pause before each sample (the pause curve; 0 elsewhere)
  int samples = 0;      // how many were taken
  double median_s = 0;  // a sample's time, median
  double mean_tps = 0;  // mean speed, tokens/s
  double cv = 0;        // sd / mean of the samples' speeds
};

struct NoiseProfile {
  int version = kNoiseProfileVersion;
  std::string machine_key;  // hw/bandwidth_probe.hpp's machine_key()
  std::string cpu_model, measured_at, engine, model;
  int threads = 1;                            // the engine's threads
  int depth = 0;                              // N_KV of every sample
  int n_ubatch = 0;                           // tokens of one PP call
  int repetitions = 0;                        // samples per curve point asked for
  double seconds = 0;                         // the whole measurement's wall time
  std::vector<NoiseCurvePoint> tg, pp, gaps;  // the pause curve is TG at one length
  // What else ran meanwhile (hw/noise_probe.hpp); absent: not readable here.
  std::optional<double> load_1m, steal_fraction, others_fraction;
};

// What the profile says about sample length: the shortest TG sample whose CV
// has stopped falling, and its time.
struct SampleTimeAdvice {
  double seconds = 0;          // a TG sample's median time there; 0: the profile cannot tell
  int tokens = 0;              // the TG length chosen
  double cv = 0;               // its CV
  double best_cv = 0;          // the smallest CV of the TG curve
  bool still_falling = false;  // the longest length is the one chosen
};
SampleTimeAdvice recommended_sample_time(const NoiseProfile& p);

// The CV a sample of `seconds` would have by `curve` (by their median
// times): interpolated on log time between the points, the end points' CV
// beyond them; nullopt for a curve without points.
std::optional<double> cv_at_seconds(const std::vector<NoiseCurvePoint>& curve, double seconds);

nlohmann::json to_json(const NoiseProfile& p);
// UserError naming `origin`, the field and the fix for a missing, mistyped,
// out-of-range or foreign-version field, or a curve beyond its bounds.
NoiseProfile noise_profile_from_json(const nlohmann::json& j, const std::string& origin);

// <cache>/hw/noise-v<version>-<machine key>.json
std::filesystem::path noise_profile_path();
// The file at `path`: at most 1 MiB, a regular file, typed as above, and of
// this machine (`machine_key`). UserError when it is anything else.
NoiseProfile read_noise_profile(const std::filesystem::path& path, const std::string& machine_key);
// This machine's profile if `hw --noise` ran here (nullopt: never); UserError
// for a damaged, foreign or hostile file, with the fix (measure again).
std::optional<NoiseProfile> load_cached_noise_profile();
void save_cached_noise_profile(const NoiseProfile& p);

}  // namespace moesweep
