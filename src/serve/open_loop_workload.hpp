#pragma once
// An open-loop workload against one server: the warm-up (its cache
// protocol), then each --request-rate, or the capacity search's probes, each
// one a round of its own: flushed (a fresh server with "restart"), primed
// with the round's shared prefix, measured. Each rate's summary holds its
// latency statistics, throughput, the client's lag behind the schedule,
// goodput under the SLOs, and the prompt cache seen by the answers' cache_n
// and the server's /metrics deltas.
#include <functional>
#include <vector>

#include "serve/capacity_search.hpp"
#include "serve/slo.hpp"
#include "serve/workload_runner.hpp"

namespace moesweep {

// serve-bench's open-loop flags.
struct TrafficOptions {
  std::vector<double> rates;  // --request-rate (kInfiniteRate: all at once)
  double burstiness = 1;
  int max_concurrency = 0;  // 0: none
  double duration_s = 0;    // 0: none
  int num_requests = 0;     // 0: kDefaultRequests unless --duration bounds the rate
  std::vector<Slo> slos;
  bool find_capacity = false;
  CapacitySettings capacity;
  bool save_tokens = false;
  bool active() const { return !rates.empty() || find_capacity; }
};

inline constexpr int kDefaultRequests = 50;
inline constexpr int kMaxRequestsPerRate = 100000;
inline constexpr double kMaxDurationS = 24 * 3600;

// UserError (exit 2) for flags that do not go together or are out of bounds,
// and for open-loop workloads without a rate (or rates without one).
void check_traffic_options(const TrafficOptions& t, const std::vector<Workload>& workloads);

// Restarts the server and returns its new client (flush "restart"); null
// for a server serve-bench cannot restart (--url).
using RestartServer = std::function<const ServeClient*()>;

WorkloadRun run_open_loop_workload(const Workload& w, const TrafficOptions& t,
                                   const ServeClient* client, const RunHooks& hooks,
                                   const RestartServer& restart);

// The rate as written: "inf" or the number.
nlohmann::json rate_json(double rate);
std::string rate_text(double rate);

}  // namespace moesweep
