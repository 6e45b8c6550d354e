#pragma once
// `moesweep hw --noise`: this machine's noise profile (hw/noise_profile.hpp),
// measured the way a sweep takes its samples (sweep/sample_length.hpp): on
// the default twin at one depth, each sample a number of engine calls of the
// shortest TG length (or of one ubatch), rewound between them.
//  - the TG curve: samples of each TG length, back to back (as a point's
//    repetitions run);
//  - the PP curve: samples of 1 to 8 ubatches;
//  - the pause curve: samples of one TG length with a pause before each:
//    whether samples spaced in time spread more (drift) or less (bursts).
// Each length's samples are taken in one block, so their CV holds what a
// sweep point's repetitions would see. Nothing is timed but the engine's own
// calls; the machine's load meanwhile is recorded beside (hw/noise_probe.hpp).
#include <functional>
#include <string>
#include <vector>

#include "hw/noise_profile.hpp"

namespace moesweep {

struct NoiseMeasureOptions {
  std::string model = "kimi-k2.5";                   // a twin profile (tiny) or a GGUF file
  std::vector<int> tg_tokens = {16, 64, 256, 1024};  // each a multiple of the first
  std::vector<int> pp_ubatches = {1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<double> gaps_s = {0, 1, 4};
  int gap_tg_tokens = 64;  // the pause curve's TG length (a multiple of the first TG length)
  int repetitions = 10;    // samples per curve point
  int threads = 1;
  int depth = 0;  // N_KV of every sample
};

// UserError for options that cannot be measured or would run without bound:
// every length, count and pause, and their totals (checked before anything runs).
void check_noise_options(const NoiseMeasureOptions& options);

// The whole measurement; `progress` hears one line per curve point.
// UserError for options that cannot be measured (explains which and why).
NoiseProfile measure_noise_profile(const NoiseMeasureOptions& options,
                                   const std::function<void(const std::string&)>& progress);

// Seconds the measurement waits in pauses alone (repetitions x gaps): what
// --noise-gaps adds to the run whatever the engine's speed.
double noise_pause_seconds(const NoiseMeasureOptions& options);

}  // namespace moesweep
