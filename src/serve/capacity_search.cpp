#include "serve/capacity_search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace moesweep {
namespace {

// A met probe that sustained less than this share of its offered rate showed
// nothing about higher rates.
constexpr double kShownFraction = 0.5;

class Search {
 public:
  Search(const std::function<std::optional<CapacityProbe>(double)>& probe,
         const CapacitySettings& s, const std::function<double()>& elapsed)
      : probe_(probe), s_(s), elapsed_(elapsed) {}

  // Runs the rate; false when the search must end (stopped, or out of probes or time).
  bool run(double rate) {
    if (static_cast<int>(r_.probes.size()) >= s_.max_probes) return stop("the probes ran out");
    if (!r_.probes.empty() && elapsed_() >= s_.budget_s) return stop("the time budget was spent");
    const auto p = probe_(rate);
    if (!p) return stop("stopped");
    r_.probes.push_back(*p);
    if (p->met && (!lo_ || p->shown() > lo_->shown())) lo_ = *p;
    if (!p->met && (!hi_ || rate < hi_->rate)) hi_ = *p;
    if (p->met && p->shown() < kShownFraction * rate)
      return stop(
          fmt::format("{:.3g} req/s was offered but only {:.3g} sent and served: more requests "
                      "(--num-requests, --duration) are needed to load the server faster",
                      rate, p->shown()));
    return true;
  }

  CapacityResult result(double start) {
    if (!run(start)) return finish();
    const bool up = lo_.has_value();  // met at the start: double, else halve
    double rate = start;
    for (int step = 0; step < s_.max_steps && !(lo_ && hi_); ++step)
      if (!run(rate = up ? rate * 2 : rate / 2)) return finish();
    while (lo_ && hi_ && hi_->rate / lo_->rate > 1 + s_.precision)
      if (!run(std::sqrt(lo_->rate * hi_->rate))) return finish();
    return finish();
  }

 private:
  bool stop(const std::string& why) {
    r_.stopped = why;
    return false;
  }

  CapacityResult finish() {
    if (lo_) r_.lo = lo_->shown();
    if (hi_) r_.hi = hi_->rate;
    if (lo_ && hi_) {
      r_.outcome = "found";
      r_.estimate = std::max(r_.lo, interpolate());
    } else if (lo_) {
      r_.outcome = "above";
      r_.estimate = r_.lo;
    } else if (hi_) {
      r_.outcome = "below";
    }
    return r_;
  }

  // Where log(worst ratio) crosses 0 between the bracket's ends; the
  // geometric middle when a ratio cannot be interpolated (0, or infinite).
  double interpolate() const {
    const double a = lo_->worst_ratio, b = hi_->worst_ratio;
    const double mid = std::sqrt(lo_->rate * hi_->rate);
    if (!(a > 0) || !std::isfinite(b) || b <= a) return mid;
    const double t = -std::log(a) / (std::log(b) - std::log(a));
    return lo_->rate * std::pow(hi_->rate / lo_->rate, std::clamp(t, 0.0, 1.0));
  }

  const std::function<std::optional<CapacityProbe>(double)>& probe_;
  const CapacitySettings& s_;
  const std::function<double()>& elapsed_;
  CapacityResult r_;
  std::optional<CapacityProbe> lo_, hi_;  // the highest rate met, the lowest missed
};

}  // namespace

CapacityResult find_capacity(const std::function<std::optional<CapacityProbe>(double)>& probe,
                             double start_rate, const CapacitySettings& settings,
                             const std::function<double()>& elapsed_s) {
  return Search(probe, settings, elapsed_s).result(start_rate);
}

nlohmann::json CapacityResult::to_json() const {
  nlohmann::json j = {{"outcome", outcome}, {"stopped", stopped}};
  j["estimate_req_per_s"] =
      outcome == "found" || outcome == "above" ? nlohmann::json(estimate) : nlohmann::json(nullptr);
  j["interval_req_per_s"] = {lo > 0 ? nlohmann::json(lo) : nlohmann::json(nullptr),
                             hi > 0 ? nlohmann::json(hi) : nlohmann::json(nullptr)};
  for (const CapacityProbe& p : probes)
    j["probes"].push_back(
        {{"rate", p.rate},
         {"met", p.met},
         {"sustained", p.shown()},
         {"worst_ratio",
          std::isfinite(p.worst_ratio) ? nlohmann::json(p.worst_ratio) : nlohmann::json(nullptr)}});
  return j;
}

std::string CapacityResult::text(const std::string& slos) const {
  const std::string why = stopped.empty() ? "" : fmt::format(" ({})", stopped);
  if (outcome == "found")
    return fmt::format("capacity {:.3g} req/s [{:.3g}, {:.3g}] at {}{}", estimate, lo, hi, slos,
                       why);
  if (outcome == "above")
    return fmt::format(
        "capacity above {:.3g} req/s (the highest rate sent and served with every SLO met) at "
        "{}{}",
        lo, slos, why);
  if (outcome == "below")
    return fmt::format("capacity below {:.3g} req/s (the lowest rate tried missed {}){}", hi, slos,
                       why);
  return fmt::format("capacity unknown: no rate was measured{}", why);
}

}  // namespace moesweep
