#include "serve/request_sender.hpp"

#include <fmt/format.h>

namespace moesweep {

double RequestSender::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
}

std::string RequestSender::why_not() {
  std::string gone = hooks_.server_gone ? hooks_.server_gone() : "";
  if (!gone.empty()) return gone;
  // A server that lets kHungAfter requests in a row run into the request
  // timeout is taken as hung: the rest are recorded as not sent, instead of
  // each waiting out the timeout (300 s by default) in turn.
  std::lock_guard lock(mu_);
  if (timeouts_in_a_row_ < kHungAfter) return "";
  return fmt::format(
      "the server answered none of the last {} requests within --request-timeout (hung?; "
      "raise --request-timeout if it is only slow)",
      timeouts_in_a_row_);
}

CompletionResult RequestSender::send(CompletionRequest req, int concurrency,
                                     const ArrivalStamp& arrival,
                                     const std::function<bool()>& cut) {
  req.steer_token = hooks_.steer_token;
  req.token_times = req.token_times || hooks_.token_times;
  req.want_tokens = req.want_tokens || req.token_times;  // --save-tokens keeps the ids too
  if (const std::string gone = why_not(); !gone.empty())
    return record_unsent(req, gone, concurrency, arrival);
  const double start = seconds();
  CompletionResult r = client_.complete(req, cut ? cut : std::function<bool()>(hooks_.interrupted));
  r.start_s = start;
  if (!r.ok && hooks_.server_gone && !hooks_.server_gone().empty())
    r.error += " (" + hooks_.server_gone() + ")";
  record(r, concurrency, arrival, true);
  return r;
}

CompletionResult RequestSender::record_unsent(const CompletionRequest& req, const std::string& why,
                                              int concurrency, const ArrivalStamp& arrival) {
  CompletionResult r;
  r.task = req.task;
  r.prompt_tokens = static_cast<int>(req.prompt.size());
  r.start_s = seconds();
  r.error = "not sent: " + why;
  record(r, concurrency, arrival, false);
  return r;
}

void RequestSender::record(const CompletionResult& r, int concurrency, const ArrivalStamp& arrival,
                           bool sent) {
  std::lock_guard lock(mu_);
  if (sent) timeouts_in_a_row_ = r.timed_out ? timeouts_in_a_row_ + 1 : 0;
  run_.requests.push_back({r, concurrency, arrival});
  if (hooks_.on_request) hooks_.on_request(run_.requests.back());
}

}  // namespace moesweep
