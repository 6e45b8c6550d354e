#include "sweep/sample_cost.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "results/power.hpp"
#include "sweep/mde_estimate.hpp"

namespace moesweep {

std::optional<SampleLengthCost> sample_length_cost(const NoiseProfile& profile, double sample_s,
                                                   int repetitions, bool paired, double alpha) {
  const SampleTimeAdvice advice = recommended_sample_time(profile);
  if (advice.seconds <= 0 || !(sample_s > 0) || sample_s >= advice.seconds) return std::nullopt;
  const std::optional<double> cv = cv_at_seconds(profile.tg, sample_s);
  const std::optional<double> cv_rec = cv_at_seconds(profile.tg, advice.seconds);
  if (!cv || !cv_rec || *cv <= *cv_rec) return std::nullopt;
  SampleLengthCost c;
  c.sample_s = sample_s;
  c.cv = *cv;
  c.recommended_s = advice.seconds;
  c.recommended_cv = *cv_rec;
  c.repetitions = repetitions;
  c.paired = paired;
  const double unit = unit_mde(paired, repetitions, alpha);
  c.mde = mde_slowdown(c.cv * unit);
  c.recommended_mde = mde_slowdown(c.recommended_cv * unit);
  return c;
}

namespace {

std::string mde_text(double slowdown) {
  return slowdown >= 1 ? std::string("no change at all")
                       : fmt::format("a {:.0f}% change", 100 * slowdown);
}

}  // namespace

std::string sample_length_cost_text(const SampleLengthCost& c, int planned_tg) {
  return fmt::format(
      "TG samples of {} tokens last {:.2g} s: CV {:.1f}% by this machine's noise profile, {:.1f}% "
      "at the {:.2g} s it recommends; at {} repetitions compare{} detects {}, {} with "
      "--min-sample-time {:.2g}",
      planned_tg, c.sample_s, 100 * c.cv, 100 * c.recommended_cv, c.recommended_s, c.repetitions,
      c.paired ? " (paired)" : "", mde_text(c.mde), mde_text(c.recommended_mde), c.recommended_s);
}

nlohmann::json to_json(const SampleLengthCost& c) {
  return {{"sample_s", c.sample_s},
          {"cv", c.cv},
          {"recommended_s", c.recommended_s},
          {"recommended_cv", c.recommended_cv},
          {"repetitions", c.repetitions},
          {"paired", c.paired},
          {"mde", c.mde},
          {"recommended_mde", c.recommended_mde}};
}

std::optional<double> median_tg_sample_seconds(const std::vector<Record>& records) {
  std::vector<double> s;
  for (const Record& r : records) {
    if (!r.ok || r.tg.seconds.empty() || r.params.tg <= 0) continue;
    const double calls =
        r.tg.tokens_run > 0 ? static_cast<double>(r.tg.tokens_run) / r.params.tg : 1;
    for (double call_s : r.tg.seconds) s.push_back(call_s * calls);
  }
  if (s.empty()) return std::nullopt;
  std::nth_element(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(s.size() / 2), s.end());
  return s[s.size() / 2];
}

}  // namespace moesweep
