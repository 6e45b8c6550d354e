#pragma once
// A test double of a llama-server whose latency grows with load in a known
// way, on loopback: it serves one request at a time, first come first served,
// each taking `service` (its n_predict tokens streamed evenly over it). It
// completes 1 / service requests per second: below that rate a request waits
// little, above it every request waits longer than the one before. It speaks
// the little of llama-server's API serve-bench needs: GET /health, POST
// /tokenize (one id per word), POST /completion (SSE with `timings`).
//
// It can also end its streams the ways a misbehaving server does (Ending):
// cut after two tokens without the final event, stopped after one token
// "for eos", an event that is no JSON, or silence after the headers (for
// the whole service time).
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

namespace moesweep::serve_test {

enum class Ending { kComplete, kCutShort, kStopsAtEos, kUnreadable, kSilent };

class QueueServerDouble {
 public:
  explicit QueueServerDouble(std::chrono::milliseconds service, Ending ending = Ending::kComplete)
      : service_(service), ending_(ending) {
    svr_.new_task_queue = [] { return new httplib::ThreadPool(64); };
    svr_.Get("/health", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(R"({"status": "ok"})", "application/json");
    });
    svr_.Post("/tokenize", [](const httplib::Request& req, httplib::Response& res) {
      res.set_content(tokenize(req.body).dump(), "application/json");
    });
    svr_.Post("/completion",
              [this](const httplib::Request& req, httplib::Response& res) { complete(req, res); });
    port_ = svr_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { svr_.listen_after_bind(); });
    for (int i = 0; i < 5000 && !svr_.is_running(); ++i)  // bounded: 5 s
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~QueueServerDouble() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    svr_.stop();
    if (thread_.joinable()) thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int served() const { return served_.load(); }

 private:
  static nlohmann::json tokenize(const std::string& body) {
    const auto j = nlohmann::json::parse(body, nullptr, false);
    std::istringstream words(j.is_object() ? j.value("content", std::string()) : "");
    nlohmann::json tokens = nlohmann::json::array();
    for (std::string w; words >> w;) tokens.push_back(std::hash<std::string>{}(w) % 50000 + 1);
    return {{"tokens", tokens}};
  }

  // Waits for its turn (tickets in arrival order), streams its tokens, ends its turn.
  void complete(const httplib::Request& req, httplib::Response& res) {
    const auto j = nlohmann::json::parse(req.body, nullptr, false);
    const int n = std::max(1, j.is_object() ? j.value("n_predict", 1) : 1);
    auto ticket = std::make_shared<uint64_t>();
    {
      std::lock_guard lock(mu_);
      *ticket = next_ticket_++;
    }
    auto finished = std::make_shared<bool>(false);
    res.set_chunked_content_provider(
        "text/event-stream",
        [this, n, ticket, finished](size_t, httplib::DataSink& sink) {
          if (!wait_turn(*ticket)) return false;
          stream(n, sink);
          end_turn(*ticket, *finished);
          sink.done();
          return true;
        },
        [this, ticket, finished](bool) {  // also when the client left before its turn
          if (wait_turn(*ticket)) end_turn(*ticket, *finished);
        });
  }

  // n tokens over the service time, ended as `ending_` says.
  void stream(int n, httplib::DataSink& sink) {
    if (ending_ == Ending::kSilent) {  // headers, then nothing for the service time
      std::unique_lock lock(mu_);
      cv_.wait_for(lock, service_, [&] { return stopping_; });
      return;
    }
    const int sent = ending_ == Ending::kCutShort   ? std::min(n, 2)
                     : ending_ == Ending::kComplete ? n
                                                    : 1;
    for (int k = 0; k < sent; ++k) {
      std::this_thread::sleep_for(service_ / n);
      nlohmann::json ev = {{"content", " the"}, {"tokens", {7}}};
      if (ending_ == Ending::kUnreadable) {
        const std::string junk = "data: {\"content\": \" the\", \"tok\n\n";
        sink.write(junk.data(), junk.size());
        return;
      }
      if (k + 1 == sent && ending_ != Ending::kCutShort)
        ev.update({{"stop", true},
                   {"stop_type", ending_ == Ending::kStopsAtEos ? "eos" : "limit"},
                   {"timings", {{"prompt_n", 1}, {"cache_n", 0}, {"predicted_n", sent}}}});
      const std::string text = "data: " + ev.dump() + "\n\n";
      if (!sink.write(text.data(), text.size())) return;
    }
  }

  bool wait_turn(uint64_t ticket) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return stopping_ || serving_ >= ticket; });
    return !stopping_;
  }
  void end_turn(uint64_t ticket, bool& finished) {
    std::lock_guard lock(mu_);
    if (finished || serving_ != ticket) return;
    finished = true;
    ++serving_;
    ++served_;
    cv_.notify_all();
  }

  const std::chrono::milliseconds service_;
  const Ending ending_;
  httplib::Server svr_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t next_ticket_ = 0, serving_ = 0;
  bool stopping_ = false;
  std::atomic<int> served_{0};
};

}  // namespace moesweep::serve_test
