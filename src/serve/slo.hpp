#pragma once
// Service-level objectives for serve-bench's open-loop rates:
//   --slo ttft_p99=2000ms,tpot_p99=200ms,e2e_mean=30s
// METRIC[_STAT]=VALUE[ms|s]: metric ttft, tpot, itl or e2e; stat mean, p50,
// p90, p95 or p99 (p99 when left out); milliseconds unless "s" is written.
// A rate meets an SLO when that statistic of its requests is within the
// bound; a request is good (goodput) when its own value of every SLO's metric
// is within every bound (serve/rate_stats.hpp says how each is measured).
#include <string>
#include <vector>

namespace moesweep {

struct Slo {
  std::string metric;  // ttft | tpot | itl | e2e
  std::string stat;    // mean | p50 | p90 | p95 | p99
  double bound_ms = 0;
  double percent() const;     // 50 for p50, ...; 0 for mean
  std::string key() const;    // "ttft_p99"
  std::string label() const;  // "ttft_p99 <= 2 s"
};

// UserError (exit 2) naming the term for anything else; "" gives none.
std::vector<Slo> parse_slos(const std::string& text);
// "ttft_p99 <= 2 s, tpot_p99 <= 200 ms"
std::string slos_label(const std::vector<Slo>& slos);
// A time for people: "850 ms", "2 s", "2.5 s".
std::string ms_text(double ms);

}  // namespace moesweep
