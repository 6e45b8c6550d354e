#pragma once
// Sends a workload's requests and records each (requests.jsonl through
// RunHooks::on_request), from one thread or many: a server gone, or one that
// let kHungAfter requests in a row run into the request timeout, gets no more
// requests; each is recorded as not sent, with the reason.
#include <chrono>
#include <functional>
#include <mutex>
#include <string>

#include "serve/workload_runner.hpp"

namespace moesweep {

class RequestSender {
 public:
  RequestSender(const ServeClient& c, const RunHooks& h, WorkloadRun& run)
      : client_(c), hooks_(h), run_(run), t0_(std::chrono::steady_clock::now()) {}
  bool stopped() const { return hooks_.interrupted && hooks_.interrupted(); }
  // Why no request can be sent any more ("" while they can): the server gone or hung.
  std::string why_not();
  // `cut` ends the exchange early (default: Ctrl-C).
  CompletionResult send(CompletionRequest req, int concurrency, const ArrivalStamp& arrival = {},
                        const std::function<bool()>& cut = {});
  // Recorded without being sent (the run stopped before its arrival).
  CompletionResult record_unsent(const CompletionRequest& req, const std::string& why,
                                 int concurrency, const ArrivalStamp& arrival = {});
  double seconds() const;  // since the sender was made: start_s's clock

 private:
  static constexpr int kHungAfter = 3;
  void record(const CompletionResult& r, int concurrency, const ArrivalStamp& arrival, bool sent);
  int timeouts_in_a_row_ = 0;
  const ServeClient& client_;
  const RunHooks& hooks_;
  WorkloadRun& run_;
  std::chrono::steady_clock::time_point t0_;
  std::mutex mu_;
};

}  // namespace moesweep
