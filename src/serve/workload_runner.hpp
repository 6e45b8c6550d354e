#pragma once
// Runs one workload against one server: the prompts, the requests in order
// (or from C clients at once for batch), /metrics before and after. A failed
// request is recorded and the run goes on; a server that has gone is noticed
// and the remaining requests recorded as not sent.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "serve/serve_client.hpp"
#include "serve/workload.hpp"

namespace moesweep {

// Where an open-loop request stood in its rate's schedule (rate 0: a
// closed-loop request, none of this applies).
struct ArrivalStamp {
  double rate = 0;                // the offered rate, requests/s (kInfiniteRate: all at once)
  std::string phase = "measure";  // warmup | prime | measure
  int round = 0;                  // the workload's rates in order, from 1 (0: the warm-up)
  size_t index = 0;               // its number in the rate's schedule
  double scheduled_s = 0;         // its arrival on the rate's clock
  double lag_ms = 0;              // how late the client sent it (behind the schedule)
  double queued_ms = 0;           // how long it waited for --max-concurrency
};

struct RequestRecord {
  CompletionResult r;
  int concurrency = 1;
  ArrivalStamp arrival;
};

struct LevelSummary {  // batch: one concurrency level
  int concurrency = 1;
  double wall_s = 0;
  int ok = 0, failed = 0;
  long output_tokens = 0;
  double docs_per_hour() const { return wall_s > 0 ? ok * 3600.0 / wall_s : 0; }
  double output_tps() const { return wall_s > 0 ? output_tokens / wall_s : 0; }
};

struct WorkloadRun {
  Workload workload;
  std::vector<RequestRecord> requests;
  std::vector<LevelSummary> levels;
  nlohmann::json rates = nlohmann::json::array();  // open-loop: a summary per rate
  nlohmann::json capacity;                         // open-loop --find-capacity: its result
  std::map<std::string, double> metrics_before, metrics_after;
  double wall_s = 0;
  bool interrupted = false;
  int failed() const;
};

struct RunHooks {
  bool (*interrupted)() = nullptr;
  std::function<std::string()> server_gone;  // why the server is gone, "" while it runs
  std::function<void(const RequestRecord&)> on_request;
  int steer_token = -1;      // see CompletionRequest
  bool token_times = false;  // --save-tokens
};

WorkloadRun run_workload(const Workload& w, const ServeClient& client, const RunHooks& hooks);

}  // namespace moesweep
