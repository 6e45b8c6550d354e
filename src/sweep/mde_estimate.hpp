#pragma once
// --target-mde in the dry run: how many repetitions a point would take until
// its cell's MDE is within the target, at the spread (CV) earlier runs of the
// same models showed, and what that costs in seconds (sweep/plan_cost.hpp).
// A plan of several engines is taken as pairs whose members share no swing
// of the machine (a conservative guess: the pairs' log ratios spread by
// CV x sqrt 2); one engine as against a baseline of its own spread.
#include <optional>
#include <string>

#include "sweep/plan.hpp"
#include "sweep/plan_cost.hpp"

namespace moesweep {

struct MdeEstimate {
  bool known = false;             // every point's model ran before, with 2 repetitions or more
  double repetitions = 0;         // mean over the points, between -r and --max-repetitions
  int at_max = 0;                 // points whose target --max-repetitions would not reach
  double cv_pp = 0, cv_tg = 0;    // the spreads used (means over the points)
  std::optional<double> seconds;  // the whole plan at those repetitions, --max-time applied
};

MdeEstimate estimate_target_mde(const Plan& plan, const SpeedTable& speeds);
// The MDE (a log ratio) of n repetitions at a CV of 1 (it scales with the
// CV): paired t on n pairs whose members share no swing, or compare's
// unpaired auto test against a baseline of n; infinity below 2.
double unit_mde(bool paired, int n, double alpha);
// One line for --dry-run; "" without --target-mde.
std::string target_mde_line(const Plan& plan, const SpeedTable& speeds);

}  // namespace moesweep
