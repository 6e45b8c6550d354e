// check_traffic_options (serve/open_loop_workload.hpp): serve-bench's
// open-loop flags, alone and against the workloads, before anything starts.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "serve/arrival_schedule.hpp"
#include "serve/open_loop.hpp"
#include "serve/open_loop_workload.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

void check_bound(const char* flag, double v, double lo, double hi, const std::string& example) {
  if (v >= lo && v <= hi) return;
  throw UserError(fmt::format("{} {} is out of bounds", flag, v),
                  fmt::format("{} from {:g} to {:g}", flag, lo, hi),
                  fmt::format("pass e.g. {} {}", flag, example));
}

const Workload* first_open_loop(const std::vector<Workload>& workloads) {
  for (const Workload& w : workloads)
    if (w.open_loop()) return &w;
  return nullptr;
}

}  // namespace

void check_traffic_options(const TrafficOptions& t, const std::vector<Workload>& workloads) {
  const Workload* open = first_open_loop(workloads);
  if (t.active() && !open)
    throw UserError("--request-rate or --find-capacity was given, but no workload is open-loop",
                    "an open-loop workload (kind \"open-loop\") to send at those rates",
                    "add --workload open-loop (or another open-loop workload file)");
  if (!t.active() && open)
    throw UserError(fmt::format("workload {} is open-loop, but no rate was given", open->name),
                    "--request-rate R1,R2,... or --find-capacity with --slo",
                    "add --request-rate 0.5,1,2 (requests/s)");
  if (!t.slos.empty() && !t.active())
    throw UserError("--slo was given without --request-rate or --find-capacity",
                    "SLOs judge open-loop rates", "add --request-rate or --find-capacity");
  for (double r : t.rates)
    if (!std::isinf(r)) check_bound("--request-rate", r, 1e-4, 1e6, "0.5,1,2");
  check_bound("--burstiness", t.burstiness, kMinBurstiness, kMaxBurstiness, "1");
  check_bound("--max-concurrency", t.max_concurrency, 0, kMaxInFlight, "4");
  check_bound("--duration", t.duration_s, 0, kMaxDurationS, "60");
  check_bound("--num-requests", t.num_requests, 0, kMaxRequestsPerRate, "50");
  // inf, or --find-capacity's first rate (the throughput, all at once)
  const bool all_at_once =
      (t.find_capacity && t.rates.empty()) ||
      std::any_of(t.rates.begin(), t.rates.end(), [](double r) { return std::isinf(r); });
  if (all_at_once && t.num_requests == 0 && t.duration_s > 0)
    throw UserError("a rate of inf (every request at once) bounded only by --duration",
                    "--num-requests to say how many requests are sent at once (--find-capacity "
                    "starts from such a rate)",
                    "add --num-requests 50");
  if (!t.find_capacity) return;
  if (t.slos.empty())
    throw UserError("--find-capacity without --slo", "the SLOs the capacity must meet",
                    "add --slo ttft_p99=2000ms,tpot_p99=200ms");
  if (t.rates.size() > 1 || (t.rates.size() == 1 && std::isinf(t.rates[0])))
    throw UserError("--find-capacity with several rates (or inf)",
                    "at most one --request-rate: the rate the search starts from",
                    "drop --request-rate (the search starts from the server's throughput)");
  check_bound("--capacity-precision", t.capacity.precision, 0.01, 1, "0.1");
  check_bound("--capacity-budget", t.capacity.budget_s, 1, kMaxDurationS * 7, "1800");
}

}  // namespace moesweep
