#include "l3_per_token.hpp"

#include <fmt/format.h>

#include "util/terminal_text.hpp"

namespace moesweep::cli {
namespace {

void print_profile(const CacheFit& f, bool simulated) {
  fmt::print("{:>12}  {:>10}  {:>14}\n", "S (MiB)", "LR",
             simulated ? "slope (B/B)" : "slope (ms/MB)");
  for (const CacheFitSize& s : f.sizes) {
    if (!s.fitted) {
      fmt::print("{:>12.3g}  {:>10}  {:>14}\n", static_cast<double>(s.bytes) / (1 << 20), "-",
                 "(no spread)");
      continue;
    }
    fmt::print("{:>12.3g}  {:>10.2f}  {:>14.4g}{}\n", static_cast<double>(s.bytes) / (1 << 20),
               s.lr, simulated ? s.slope : s.slope * 1e9,
               &s == &f.sizes[f.best] ? "  <- best" : "");
  }
}

}  // namespace

int run_l3_per_token(const std::filesystem::path& run, const PerTokenOptions& options, bool plot) {
  const PerTokenOutput out = write_per_token_l3(run, options, plot);
  const PerTokenL3& r = out.result;
  print_wrapped(fmt::format(
      "per-token fit of {} on predicted miss bytes (byte-LRU, hot set and routed experts), "
      "an intercept per call, position as a covariate",
      options.simulated ? "simulated LL-miss bytes" : "decode time"));
  print_wrapped(fmt::format(
      "{} tokens in {} timed calls of {} (left out: {} without a traced pass, {} whose pass "
      "decoded other tokens or positions)",
      r.fit.tokens, r.fitted_calls, r.timed_calls, r.without_pass, r.mismatched));
  if (r.interrupted > 0)
    fmt::print("{} tokens left out as interrupted (more than {:g}x their call's median)\n",
               r.interrupted, options.interrupted_factor);
  if (r.skipped > 0)
    fmt::print("{} tokens left out as the first {} of their call (--skip-first)\n", r.skipped,
               options.skip_first);
  fmt::print("traced passes of one point routed alike in every repetition: {} of {} points\n\n",
             r.points_repeatable, r.points);
  if (r.fit.best >= 0) print_profile(r.fit, options.simulated);
  if (r.sim) {
    fmt::print("\n");
    print_wrapped(
        fmt::format("at the simulated LL ({:.0f} MiB): measured {:.0f} B/token, predicted {:.0f} "
                    "B/token, bias {:+.0f} B/token ({:+.1f}%), correlation {:.3f} over {} tokens",
                    static_cast<double>(r.sim->ll_bytes) / (1 << 20), r.sim->mean_measured,
                    r.sim->mean_predicted, r.sim->bias,
                    r.sim->mean_measured > 0 ? 100 * r.sim->bias / r.sim->mean_measured : 0.0,
                    r.sim->correlation, r.sim->tokens));
  }
  fmt::print("\n");
  print_wrapped("answer: " + r.fit.verdict);
  fmt::print("\nwrote {}\n", out.file.string());
  if (out.plot) {
    for (const auto& png : out.plot->pngs) fmt::print("wrote {}\n", png.string());
    if (out.plot->pngs.empty()) print_wrapped("no plot: " + out.plot->problem);
  }
  return 0;
}

}  // namespace moesweep::cli
