#include "serve/http_exchange.hpp"

#include <fmt/format.h>
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "serve/serve_client.hpp"

namespace moesweep {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kHeaderAllowance = 1u << 20;
constexpr auto kPoll = std::chrono::milliseconds(50);

// Stops `cli` (closes its socket from this thread) at the first limit reached.
class Watchdog {
 public:
  Watchdog(httplib::Client& cli, const HttpLimits& limits, const std::atomic<int>& fd)
      : cli_(cli), limits_(limits), fd_(fd), end_(Clock::now() + limits.deadline) {
    thread_ = std::thread([this] { watch(); });
  }
  ~Watchdog() { finish(); }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // Ends the watch; why it cut the exchange short ("" when it did not).
  std::string finish() {
    {
      std::lock_guard lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    std::lock_guard lock(mu_);
    return reason_;
  }
  // A reason found by the exchange itself (it stops on its own).
  void note(const std::string& why) {
    std::lock_guard lock(mu_);
    if (reason_.empty()) reason_ = why;
  }

 private:
  void stop(const std::string& why) {
    note(why);
    cli_.stop();
  }

  std::string due() const {
    if (limits_.interrupted && limits_.interrupted()) return "interrupted";
    if (Clock::now() >= end_)
      return fmt::format("no complete answer within {:.1f} s", limits_.deadline.count() / 1000.0);
    if (socket_bytes_received(fd_.load()) > limits_.max_bytes + kHeaderAllowance)
      return fmt::format("the server sent more than {} KiB",
                         (limits_.max_bytes + kHeaderAllowance) >> 10);
    return "";
  }
  void watch() {
    std::unique_lock lock(mu_);
    while (!done_) {
      cv_.wait_for(lock, kPoll);
      if (done_) return;
      lock.unlock();
      const std::string why = due();
      if (!why.empty()) stop(why);
      lock.lock();
    }
  }

  httplib::Client& cli_;
  const HttpLimits& limits_;
  const std::atomic<int>& fd_;
  const Clock::time_point end_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::string reason_;
  std::thread thread_;
};

}  // namespace

std::string HttpAnswer::what() const {
  if (!stopped.empty()) return stopped;
  // httplib's one-word errors, said as what the server did.
  if (!answered && error == "Read") return "no answer: it closed the connection or stayed silent";
  if (!answered && error == "Connection") return "no connection: nothing answers at that address";
  if (!answered) return "no answer: " + error;
  return fmt::format("HTTP {}", status);
}

HttpAnswer http_exchange(const ServerAddress& addr, const HttpRequest& req,
                         const HttpLimits& limits) {
  HttpAnswer answer;
  if (limits.interrupted && limits.interrupted()) {
    answer.stopped = "interrupted";
    return answer;
  }
  httplib::Client cli(addr.host, addr.port);
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(limits.deadline).count();
  // A server that queues under open-loop load may take seconds to accept: that
  // wait is part of the request's latency, not a failed request.
  cli.set_connection_timeout(std::clamp<time_t>(seconds, 1, 30));
  // A read waits past the deadline: the watchdog ends the exchange and says
  // so ("no complete answer within ..."), not the library's bare "Read".
  cli.set_read_timeout(std::max<time_t>(1, seconds) + 2);
  cli.set_write_timeout(std::max<time_t>(1, seconds));
  cli.set_keep_alive(false);
  std::atomic<int> fd{-1};
  cli.set_socket_options([&fd](socket_t sock) { fd.store(static_cast<int>(sock)); });
  httplib::Request hreq;
  hreq.method = req.method;
  hreq.path = req.path;
  hreq.body = req.body;
  if (!req.body.empty()) hreq.set_header("Content-Type", "application/json");
  Watchdog dog(cli, limits, fd);
  size_t received = 0;
  hreq.content_receiver = [&](const char* data, size_t len, uint64_t, uint64_t) {
    received += len;
    if (received > limits.max_bytes) {
      dog.note(fmt::format("the server sent more than {} KiB", limits.max_bytes >> 10));
      return false;
    }
    if (req.on_body) return req.on_body(data, len);
    answer.body.append(data, len);
    return true;
  };
  httplib::Response res;
  httplib::Error err = httplib::Error::Success;
  const bool sent = cli.send(hreq, res, err);
  answer.stopped = dog.finish();
  answer.answered = sent || res.status > 0;
  answer.status = res.status;
  if (!sent) answer.error = httplib::to_string(err);
  return answer;
}

}  // namespace moesweep
