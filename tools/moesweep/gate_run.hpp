#pragma once
// `moesweep gate`: the CI regression gate as one command (issue 45). Two
// modes:
//  - A/B (--base SPEC): the base engine and the new one (default: this
//    build's worker) in one interleaved sweep, compared pair by pair; SPEC is
//    a registered engine, a release version or a checkout (engine_spec.hpp),
//    registered on first use;
//  - stored baselines (no --base): the profile's sweep against this machine
//    class's runs in the store (results/baselines/ci); --update files the
//    run there instead.
// Beside the run it writes compare.md and compare.json (compare's report),
// gate.md (a pull-request comment) and junit.xml (one case per cell and
// metric), and appends gate.md to $GITHUB_STEP_SUMMARY when that is set.
// Exit 0 pass, 4 regression, 5 inconclusive, 2 bad input, 130 interrupted.
#include <string>

#include "compare_options.hpp"

namespace moesweep::cli {

struct GateArgs {
  std::string base, fresh = "default";
  std::string profile;  // "" = ci-ab, ci-counts with --counts, ci without --base
  bool counts = false;
  std::string target_mde, max_time;
  std::string out_dir = "results/gate";
  std::string baseline = "results/baselines/ci";
  bool update = false;
  int keep = 3;
  bool dry_run = false;
  bool quiet = false;
  CompareChoice choice;
};

int run_gate(const GateArgs& args);

}  // namespace moesweep::cli
