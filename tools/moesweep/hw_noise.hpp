#pragma once
// `moesweep hw --noise`: its options, and the noise profile's text (the CV
// against sample length and pause, and the sample time sweeps take from it).
#include <CLI/CLI.hpp>

#include <string>

#include "hw/noise_profile.hpp"
#include "sweep/noise_measure.hpp"

namespace moesweep::cli {

// The --noise-* options as text (lists such as 1-8), read into the options
// by noise_options().
struct NoiseFlags {
  std::string tg = "16,64,256,1024", pp = "1-8", gaps = "0,1,4";
  NoiseMeasureOptions options;
};
void add_noise_options(CLI::App& cmd, NoiseFlags& flags);
NoiseMeasureOptions noise_options(const NoiseFlags& flags);

// The whole table when `table` (just measured), else one line; both end
// with the sample time sweeps take from it.
void print_noise_profile(const NoiseProfile& p, bool table);

}  // namespace moesweep::cli
