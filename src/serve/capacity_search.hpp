#pragma once
// The capacity of a server: the highest request rate whose requests meet
// every SLO. A probe runs one rate and says whether its SLOs were met and by
// how much (the worst value / bound). The search brackets the capacity by
// doubling or halving from a start rate (the server's own throughput, from a
// probe with every request sent at once, unless one is given), then bisects
// the bracket geometrically until its ends are within `precision` of each
// other, the probes run out or the time budget is spent (checked before each
// probe). The estimate interpolates log(worst ratio) between the bracket's
// ends to where it crosses 1; the bracket is its interval. A capacity claim
// is bounded by what was offered and achieved: the bracket's low end is the
// rate its probe really sent and served (CapacityProbe::shown), and a met
// probe that sustained less than half its offered rate (a workload too
// short, or a client too slow, to load the server at that rate) ends the
// search: no higher rate could be shown either.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace moesweep {

struct CapacityProbe {
  double rate = 0;  // offered
  bool met = false;
  double worst_ratio = 0;  // the largest SLO value / bound (inf: a failed request)
  // The rate the probe really loaded the server at: the least of the offered
  // rate, the rate the client sent at and the rate the server served at
  // (< 0: unknown, taken as offered). A met probe shows capacity up to this.
  double sustained = -1;
  double shown() const { return sustained >= 0 ? std::min(rate, sustained) : rate; }
};

struct CapacitySettings {
  double precision = 0.1;  // stop when hi / lo <= 1 + precision
  double budget_s = 1800;
  int max_probes = 16;
  int max_steps = 6;  // doublings or halvings while bracketing
};

struct CapacityResult {
  // found: lo met, hi missed; below: missed even at the lowest rate tried;
  // above: met even at the highest (lo: the highest rate shown); none: no
  // probe ran (stopped at once)
  std::string outcome = "none";
  double estimate = 0, lo = 0, hi = 0;
  std::vector<CapacityProbe> probes;
  std::string stopped;  // why the search ended before its precision ("" when it did not)
  nlohmann::json to_json() const;
  // "capacity 0.42 req/s [0.38, 0.45] at ttft_p99 <= 2 s"
  std::string text(const std::string& slos) const;
};

// probe(rate): nullopt stops the search (Ctrl-C, a server gone). elapsed_s:
// seconds since the search began.
CapacityResult find_capacity(const std::function<std::optional<CapacityProbe>(double)>& probe,
                             double start_rate, const CapacitySettings& settings,
                             const std::function<double()>& elapsed_s);

}  // namespace moesweep
