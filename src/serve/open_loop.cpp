#include "serve/open_loop.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace moesweep {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kLoadPoll = std::chrono::milliseconds(50);  // how soon Ctrl-C is seen while waiting

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

struct Released {
  size_t index;
  Clock::time_point due, at;  // its arrival time, when the dispatcher released it
};

// The requests released and not yet taken, and the workers taking them.
class Dispatch {
 public:
  Dispatch(const OpenLoopSettings& s, const std::function<CompletionRequest(size_t)>& request,
           RequestSender& sender, const std::vector<double>& times)
      : s_(s), request_(request), sender_(sender), times_(times), t0_(Clock::now()) {
    cap_ = static_cast<size_t>(s.max_concurrency > 0 ? s.max_concurrency : kMaxInFlight);
  }
  ~Dispatch() { join(); }

  OpenLoopOutcome run() {
    OpenLoopOutcome out;
    out.scheduled = times_.size();
    for (size_t i = 0; i < times_.size(); ++i) {
      const auto due = t0_ + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(times_[i]));
      if (!wait_until(due)) break;  // Ctrl-C: no more arrivals
      release({i, due, Clock::now()});
      ++out.released;
    }
    {
      std::lock_guard lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    join();
    out.interrupted = sender_.stopped();
    out.wall_s = ms_between(t0_, Clock::now()) / 1000;
    return out;
  }

 private:
  // Sleeps until `due` unless Ctrl-C comes first (false then). A server gone
  // or hung does not wait: its requests are recorded as not sent at once.
  bool wait_until(Clock::time_point due) {
    while (Clock::now() < due) {
      if (sender_.stopped()) return false;
      if (!sender_.why_not().empty()) return true;
      std::this_thread::sleep_for(std::min<Clock::duration>(kLoadPoll, due - Clock::now()));
    }
    return !sender_.stopped();
  }

  void release(const Released& r) {
    std::lock_guard lock(mu_);
    queue_.push_back(r);
    if (queue_.size() > idle_ && workers_.size() < cap_) workers_.emplace_back([this] { work(); });
    cv_.notify_one();
  }

  void work() {
    std::unique_lock lock(mu_);
    for (;;) {
      ++idle_;
      cv_.wait(lock, [this] { return done_ || !queue_.empty(); });
      --idle_;
      if (queue_.empty()) return;  // done
      const Released r = queue_.front();
      queue_.pop_front();
      lock.unlock();
      send(r);
      lock.lock();
    }
  }

  void send(const Released& r) {
    const auto sent = Clock::now();
    ArrivalStamp a;
    a.rate = s_.arrivals.rate;
    a.round = s_.round;
    a.index = r.index;
    a.scheduled_s = times_[r.index];
    // The dispatcher's lateness is the client's; so is a wait for a worker
    // unless the user capped the requests in flight.
    // (A server gone releases the rest early: no lag is negative.)
    a.lag_ms = std::max(0.0, ms_between(r.due, s_.max_concurrency > 0 ? r.at : sent));
    a.queued_ms = s_.max_concurrency > 0 ? ms_between(r.at, sent) : 0;
    CompletionRequest req = request_(r.index);
    if (sender_.stopped()) {  // released, then Ctrl-C before a worker took it
      sender_.record_unsent(req, "interrupted before it was sent", s_.max_concurrency, a);
      return;
    }
    // Ctrl-C while it is in flight: it may end within the grace, then it is cut.
    const auto cut = [this] {
      if (!sender_.stopped()) return false;
      Clock::time_point none{};
      stop_at_.compare_exchange_strong(none, Clock::now());
      return Clock::now() >= stop_at_.load() + std::chrono::duration_cast<Clock::duration>(
                                                   std::chrono::duration<double>(s_.grace_s));
    };
    sender_.send(std::move(req), s_.max_concurrency, a, cut);
  }

  void join() {
    for (auto& t : workers_)
      if (t.joinable()) t.join();
  }

  const OpenLoopSettings& s_;
  const std::function<CompletionRequest(size_t)>& request_;
  RequestSender& sender_;
  const std::vector<double>& times_;
  const Clock::time_point t0_;
  size_t cap_ = kMaxInFlight;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Released> queue_;
  std::vector<std::thread> workers_;
  size_t idle_ = 0;
  bool done_ = false;
  std::atomic<Clock::time_point> stop_at_{Clock::time_point{}};
};

}  // namespace

OpenLoopOutcome run_open_loop(const OpenLoopSettings& s,
                              const std::function<CompletionRequest(size_t)>& request,
                              RequestSender& sender) {
  const std::vector<double> times = arrival_times(s.arrivals, s.num_requests, s.duration_s);
  Dispatch d(s, request, sender, times);
  return d.run();
}

}  // namespace moesweep
