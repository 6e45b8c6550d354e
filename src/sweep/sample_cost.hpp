#pragma once
// What a fixed -n costs in detectable change (issue 31 §1). A sweep that
// keeps one call of -n per sample (--min-sample-time 0, or a profile that
// says so) while this machine's noise profile (hw/noise_profile.hpp) shows
// longer samples are steadier is told: the CV its samples have by the
// profile, the CV at the profile's recommended time, and the minimum
// detectable effect each gives at the run's repetitions (compare's test at
// its cell alpha, 90% power: sweep/mde_estimate.hpp's unit_mde).
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "hw/noise_profile.hpp"
#include "results/record.hpp"

namespace moesweep {

struct SampleLengthCost {
  double sample_s = 0;  // the run's median TG sample
  double cv = 0;        // its CV by the profile
  double recommended_s = 0, recommended_cv = 0;
  int repetitions = 0;
  bool paired = false;  // several engines: paired t on the ABBA pairs
  double mde = 0;       // slowdown fractions (results/power.hpp), 1 = none detectable
  double recommended_mde = 0;
};

// nullopt when the samples are as long as the profile recommends (or it
// recommends nothing): then a fixed -n costs nothing the profile can show.
std::optional<SampleLengthCost> sample_length_cost(const NoiseProfile& profile, double sample_s,
                                                   int repetitions, bool paired, double alpha);
// "TG samples of N tokens last T s: CV c% by this machine's noise profile,
// c'% at the T' s it recommends; at r repetitions compare detects a m%
// change, m'% with --min-sample-time T'".
std::string sample_length_cost_text(const SampleLengthCost& cost, int planned_tg);
nlohmann::json to_json(const SampleLengthCost& cost);

// The median TG sample time of the ok records (each call's time x calls);
// nullopt without TG samples.
std::optional<double> median_tg_sample_seconds(const std::vector<Record>& records);

}  // namespace moesweep
