#pragma once
// `moesweep bisect --good A --bad B`: which change made a build do more work
// per token. Counts under valgrind are deterministic at one thread, so each
// build is measured once and the answer does not depend on the machine's
// load. Two ways:
//  - releases (no --checkout): A and B are pinned package versions; the
//    releases between them are registered as needed and searched by halves;
//  - commits (--checkout DIR, a llama.cpp git checkout with history): A and B
//    are commits; `git bisect run` walks them in a worktree of its own (DIR
//    is left as it is) with `moesweep __bisect-judge` deciding each commit,
//    which is built as an engine through the compiler cache.
// A build is bad when its metric grew beyond --threshold against A's in any
// cell of the profile. Exit 0: the first bad one named; 5: B is not worse
// than A (nothing to bisect); 2: bad input; 130: interrupted.
#include <string>

namespace moesweep::cli {

struct BisectArgs {
  std::string good, bad;
  std::string metric = "tg_instructions_per_token";
  std::string threshold = "1";
  std::string checkout;
  std::string profile = "ci-counts";
  std::string out_dir = "results/bisect";
};
int run_bisect(const BisectArgs& args);

// The judge `git bisect run` calls in the checkout: builds HEAD as an engine,
// measures it and exits 0 (good), 1 (bad) or 125 (does not build: skip).
struct JudgeArgs {
  std::string reference, metric, threshold, profile, out_dir;
  std::string twin_for;  // the good commit's engine: the twin every commit measures
};
int run_bisect_judge(const JudgeArgs& args);

}  // namespace moesweep::cli
