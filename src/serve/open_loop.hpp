#pragma once
// One rate of open-loop load: requests sent at their seeded arrival times
// whether or not earlier ones have been answered. A dispatcher releases each
// at its time; workers (one per request in flight, at most --max-concurrency,
// else kMaxInFlight) send them. The client's own lateness is measured: a
// request released after its time (a slow or loaded client machine) has
// lag_ms, and without --max-concurrency a wait for a free worker counts as lag
// too; with it, that wait is queued_ms (the cap's doing, as in vLLM).
// Bounded: at most num_requests, none after duration_s. Ctrl-C stops the
// arrivals at once; requests in flight get grace_s to end, then are cut.
// A server gone or hung gets no more requests: the rest are recorded as not
// sent, at once, without waiting for their times.
#include <functional>
#include <string>

#include "serve/arrival_schedule.hpp"
#include "serve/request_sender.hpp"

namespace moesweep {

inline constexpr int kMaxInFlight = 256;

struct OpenLoopSettings {
  ArrivalSpec arrivals;
  int round = 0;            // recorded in each request's ArrivalStamp
  int max_concurrency = 0;  // 0: none (up to kMaxInFlight)
  size_t num_requests = 0;
  double duration_s = 0;  // 0: no limit
  double grace_s = 5;
};

struct OpenLoopOutcome {
  size_t scheduled = 0;  // arrivals in the schedule
  size_t released = 0;   // sent or recorded as not sent
  bool interrupted = false;
  double wall_s = 0;
};

// request(i): the i-th arrival's request; each is recorded through `sender`
// with its ArrivalStamp (phase "measure", the rate, the index, the times).
OpenLoopOutcome run_open_loop(const OpenLoopSettings& s,
                              const std::function<CompletionRequest(size_t)>& request,
                              RequestSender& sender);

}  // namespace moesweep
