#include "bisect_run.hpp"

#include <fmt/format.h>

#include "bisect_commits.hpp"
#include "bisect_measure.hpp"
#include "compare_options.hpp"
#include "engine/engine_registry.hpp"
#include "engine/engine_spec.hpp"
#include "engine/release_range.hpp"
#include "engine_sweep.hpp"
#include "util/error.hpp"
#include "util/first_bad.hpp"

namespace moesweep::cli {
namespace fs = std::filesystem;

namespace {

int bisect_releases(const BisectArgs& a, const BisectMetric& m, double threshold) {
  const std::vector<PinnedVersion> list = pinned_between(a.good, a.bad);
  const fs::path registry = engine_registry_dir();
  std::map<size_t, CellValues> seen;
  const auto measure = [&](size_t i) -> const CellValues& {
    if (!seen.count(i)) {
      const EngineSpec spec = resolve_engine_spec(list[i].version, "--good/--bad");
      ensure_registered(registry, spec, engine_add_progress);
      bisect_say(fmt::format("measuring {} ({})", list[i].version, list[i].release));
      seen[i] = measure_counts(spec.name, a.profile, m, fs::path(a.out_dir) / "runs");
    }
    return seen[i];
  };
  const double whole = worst_growth(measure(0), measure(list.size() - 1));
  if (whole <= threshold) {
    bisect_say(fmt::format("{} grew {} from {} to {}: within {}; nothing to bisect", m.text,
                           growth_text(whole), a.good, a.bad, growth_text(threshold)));
    return exit_code::kInconclusive;
  }
  const size_t hi = first_bad_index(0, list.size() - 1, [&](size_t i) {
    return worst_growth(measure(0), measure(i)) > threshold;
  });
  const size_t lo = hi - 1;
  fmt::print("first bad release: {} ({}), after {} ({}): {} {} against {} ({} releases measured)\n",
             list[hi].version, list[hi].release, list[lo].version, list[lo].release, m.text,
             growth_text(worst_growth(measure(0), measure(hi))), a.good, seen.size());
  return exit_code::kOk;
}

}  // namespace

int run_bisect(const BisectArgs& a) {
  const BisectMetric m = parse_bisect_metric(a.metric);
  const double threshold = parse_percent(a.threshold, "--threshold");
  if (a.good.empty() || a.bad.empty())
    throw UserError("bisect needs --good and --bad", "two releases, or two commits with --checkout",
                    "e.g. moesweep bisect --good 3.21.1 --bad 3.22.1");
  return a.checkout.empty() ? bisect_releases(a, m, threshold) : bisect_commits(a, m, threshold);
}

}  // namespace moesweep::cli
