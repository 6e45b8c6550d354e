#pragma once
// The seeds' "th=13 keeps 90% of the speed and frees 3 cores", computed: the
// smallest thread count whose prefill and decode speeds both stay within a
// fraction of the best seen in a threads sweep. A verdict like any other, so
// said with its uncertainty: each thread count's fraction of the best has a
// 95% CI (from the points' repetitions), and those whose CI overlaps the line
// (90%) cannot be told apart from it.
#include <nlohmann/json.hpp>

#include <span>
#include <string>
#include <vector>

#include "util/terminal_text.hpp"

namespace moesweep {

struct ThreadPoint {
  int threads = 0;
  double speed_pp = 0;  // tokens/s; 0 = not measured (phase ignored for this point)
  double speed_tg = 0;
  // Standard error of each mean and its samples; n < 2: the spread is unknown.
  double se_pp = 0, se_tg = 0;
  int n_pp = 0, n_tg = 0;
};

// One thread count's fraction of the best speed of a phase, with its 95% CI.
struct Fraction {
  double value = 0, lo = 0, hi = 0;
  bool known = false;  // a CI: both means from 2 samples or more
  double log_se = 0;   // standard error of log(value): what the repetitions would shrink
};
struct ThreadFractions {
  int threads = 0;
  Fraction pp, tg;
  bool cannot_tell = false;  // a used phase's CI overlaps the line
};

struct SweetSpotOptions {
  double keep_pp = 0.90;  // fraction of the best S_PP to keep; 0 ignores prefill
  double keep_tg = 0.90;  // fraction of the best S_TG to keep; 0 ignores decode
  int total_cores = 0;    // cores on the machine; 0: the largest thread count swept
};

struct SweetSpot {
  bool found = false;
  int threads = 0;
  double speed_pp = 0, speed_tg = 0;
  double best_pp = 0, best_tg = 0;
  int best_pp_threads = 0, best_tg_threads = 0;
  double pp_fraction = 0, tg_fraction = 0;  // of the best, at `threads`
  int cores_freed = 0;
  std::vector<ThreadFractions> fractions;  // every thread count, ascending
  bool spread_known = false;               // every used fraction has a CI
  int repetitions = 0;                     // the fewest samples a point had
  // Repetitions a point would need for every used fraction's CI to be within
  // ±10% at this spread; 0 when its intervals are that narrow already (or
  // unknown). At 2 repetitions the t quantile (1 degree of freedom, 12.7)
  // makes them unbounded: "36% [0%, 4414%]".
  int repetitions_to_bound = 0;
  std::string headline;     // "sweet spot: th=N keeps ...; frees K of M cores"
  std::string uncertainty;  // what the CIs say, and how many repetitions would bound them
  std::string summary;      // both on one line (tables.md, JSON)
};

// Points with the same thread count (repetitions, several depths) are averaged.
SweetSpot find_sweet_spot(std::span<const ThreadPoint> points,
                          const SweetSpotOptions& options = {});
nlohmann::json to_json(const SweetSpot& s);
// Under a threads table, after `prefix` ("beside stream: "): the summary on
// one line (kWide), or the headline and the uncertainty on lines that fit a
// terminal (kCompact). Ends with a newline.
std::string sweet_spot_text(const SweetSpot& s, const std::string& prefix, TableWidth width);

}  // namespace moesweep
