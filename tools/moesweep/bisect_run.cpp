#include "bisect_run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <functional>
#include <map>
#include <optional>

#include "bisect_commits.hpp"
#include "bisect_measure.hpp"
#include "compare_options.hpp"
#include "engine/engine_registry.hpp"
#include "engine/engine_spec.hpp"
#include "engine/release_pins.hpp"
#include "engine_sweep.hpp"
#include "util/error.hpp"
#include "util/first_bad.hpp"

namespace moesweep::cli {
namespace fs = std::filesystem;

namespace {

std::string release_text(const PinnedRelease& r) {
  return fmt::format("{} ({})", r.version, r.release);
}

// The answer: exact (exit 0), or, when releases that failed to measure lie
// right before the first bad one, the candidates (exit 5).
int report_first_bad(const std::vector<PinnedRelease>& all, const FirstBad& found,
                     const std::function<std::string(size_t)>& growth, size_t measured) {
  const size_t before = (found.skipped.empty() ? found.index : found.skipped.front()) - 1;
  if (found.skipped.empty()) {
    fmt::print("first bad release: {}, after {}: {} ({} releases measured)\n",
               release_text(all[found.index]), release_text(all[before]), growth(found.index),
               measured);
    return exit_code::kOk;
  }
  std::vector<std::string> candidates;
  for (size_t i : found.skipped) candidates.push_back(release_text(all[i]) + " failed to measure");
  candidates.push_back(release_text(all[found.index]) + ": " + growth(found.index));
  fmt::print("first bad release: one of {} (after {}, the last good one; {} releases tried)\n",
             fmt::join(candidates, "; "), release_text(all[before]), measured);
  return exit_code::kInconclusive;
}

// The first bad release by halves. A release whose every point fails (its
// worker aborts: 3.9.0 and 3.10.0 in ggml's repack code) is skipped, never
// taken for bad; GOOD and BAD themselves must measure.
int bisect_releases(const BisectArgs& a, const BisectMetric& m, double threshold) {
  for (const std::string& end : {a.good, a.bad}) (void)supported_release(end);
  const std::vector<PinnedRelease> all = releases_between(a.good, a.bad);
  const fs::path registry = engine_registry_dir();
  std::map<size_t, CountedBuild> seen;
  const auto measure = [&](size_t i) -> const CellValues& {
    if (!seen.count(i)) {
      const EngineSpec spec = resolve_engine_spec(all[i].version, "--good/--bad");
      ensure_registered(registry, spec, engine_add_progress);
      bisect_say("measuring " + release_text(all[i]));
      // The twin GOOD reads (the oldest release: every later one reads it too),
      // so that each release measures the same work.
      seen[i] = measure_counts(spec.name, a.profile, m, fs::path(a.out_dir) / "runs",
                               resolve_engine_spec(all.front().version, "--good").name);
    }
    return seen[i].cells;
  };
  const double whole = worst_growth(measure(0), measure(all.size() - 1));
  if (whole <= threshold) {
    bisect_say(fmt::format("{} grew {} from {} to {}: within {}; nothing to bisect", m.text,
                           growth_text(whole), a.good, a.bad, growth_text(threshold)));
    return exit_code::kInconclusive;
  }
  std::vector<std::string> failed;
  const FirstBad found = first_bad_index(0, all.size() - 1, [&](size_t i) -> std::optional<bool> {
    try {
      return worst_growth(measure(0), measure(i)) > threshold;
    } catch (const UserError& e) {
      if (e.exit_code() == exit_code::kInterrupted) throw;
      const std::string known =
          all[i].known_issue.empty() ? "" : " (known issue: " + all[i].known_issue + ")";
      bisect_say(fmt::format("{} failed to measure, skipped: {}{}", release_text(all[i]),
                             e.problem(), known));
      failed.push_back(all[i].version);
      return std::nullopt;
    }
  });
  const auto growth = [&](size_t i) {
    return fmt::format("{} {} against {}", m.text,
                       growth_text(worst_growth(measure(0), measure(i))), a.good);
  };
  const int code = report_first_bad(all, found, growth, seen.size() + failed.size());
  if (const std::string hint = per_function_hint(seen[0], seen[found.index]); !hint.empty())
    fmt::print("{}\n", hint);
  return code;
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
