#pragma once
// `moesweep bisect --checkout DIR` (bisect_run.hpp): commits of a llama.cpp
// git checkout, walked by `git bisect run` in a worktree of its own with
// `moesweep __bisect-judge` deciding each one.
#include "bisect_measure.hpp"
#include "bisect_run.hpp"

namespace moesweep::cli {

int bisect_commits(const BisectArgs& a, const BisectMetric& m, double threshold);

}  // namespace moesweep::cli
