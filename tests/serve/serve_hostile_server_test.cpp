// A server's answers are input too: a real HTTP server on loopback (cpp-httplib,
// started by the test) that answers with ill-typed fields, tokens that are no
// ids, and an event that never ends. The client turns each into a clear error
// (UserError exit 2 for /tokenize, a failed request for a completion) and never
// an exception through the HTTP library or a crash.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <functional>
#include <string>
#include <thread>

#include "results/run_meta.hpp"
#include "serve/serve_client.hpp"
#include "serve/workload.hpp"
#include "serve/workload_runner.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

// One loopback server whose routes the test sets; stopped and joined on scope exit.
class HostileServer {
 public:
  HostileServer() { port_ = svr_.bind_to_any_port("127.0.0.1"); }
  ~HostileServer() {
    stopping_ = true;
    svr_.stop();
    if (thread_.joinable()) thread_.join();
  }
  httplib::Server& routes() { return svr_; }
  ServerAddress start() {
    thread_ = std::thread([this] { svr_.listen_after_bind(); });
    for (int i = 0; i < 5000 && !svr_.is_running(); ++i)  // bounded: 5 s
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return ServerAddress{"127.0.0.1", port_};
  }
  // An answer that never ends: `piece` every `every`, until the client leaves
  // or the test ends (then the server can stop).
  void endless(httplib::Response& res, std::string piece, std::chrono::milliseconds every) {
    res.set_chunked_content_provider("text/plain",
                                     [this, piece, every](size_t, httplib::DataSink& sink) {
                                       if (stopping_) return false;
                                       if (every.count() > 0) std::this_thread::sleep_for(every);
                                       return sink.write(piece.data(), piece.size());
                                     });
  }
  void stop_endless() { stopping_ = true; }
  // An SSE answer of these raw bytes.
  static void stream(httplib::Response& res, std::string body) {
    res.set_chunked_content_provider("text/event-stream", [body](size_t, httplib::DataSink& sink) {
      sink.write(body.data(), body.size());
      sink.done();
      return true;
    });
  }

 private:
  httplib::Server svr_;
  std::thread thread_;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
};

// A TCP server on loopback that answers every connection with a status line
// and then header lines forever (no HTTP library would send that).
class HeaderFlood {
 public:
  HeaderFlood() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    ::listen(fd_, 4);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      const std::string head = "HTTP/1.1 200 OK\r\n";
      const std::string line = "X-Flood: " + std::string(100, 'y') + "\r\n";
      bool ok = ::send(c, head.data(), head.size(), MSG_NOSIGNAL) > 0;
      while (ok && !stop_) ok = ::send(c, line.data(), line.size(), MSG_NOSIGNAL) > 0;
      ::close(c);
    });
  }
  ~HeaderFlood() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  ServerAddress address() const { return {"127.0.0.1", port_}; }

 private:
  int fd_ = -1, port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

std::atomic<bool> g_interrupted{false};
bool interrupted_flag() {
  return g_interrupted.load();
}

void expect_user_error(const std::function<void()>& f, const std::string& says) {
  try {
    f();
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_NE(e.problem().find(says), std::string::npos) << e.problem();
    EXPECT_FALSE(e.fix().empty());
  }
}

TEST(HostileServer, TokenizeAnswersThatAreNoIdsAreClearErrors) {
  HostileServer s;
  int call = 0;
  s.routes().Post("/tokenize", [&](const httplib::Request&, httplib::Response& res) {
    static const char* const answers[] = {R"({"tokens": ["x"]})", R"({"tokens": [3000000000]})",
                                          R"({"tokens": [{"id": "7"}]})", R"({"tokens": []})"};
    res.set_content(answers[std::min(call++, 3)], "application/json");
  });
  const ServeClient client(s.start(), 10);
  expect_user_error([&] { client.tokenize("a"); }, "no id");
  expect_user_error([&] { client.tokenize("a"); }, "no id");
  expect_user_error([&] { client.tokenize("a"); }, "no id");
  expect_user_error([&] { client.tokenize("a"); }, "into no tokens");
}

TEST(HostileServer, IllTypedStreamFieldsFailTheRequestNotTheRun) {
  HostileServer s;
  s.routes().Post("/completion", [](const httplib::Request&, httplib::Response& res) {
    HostileServer::stream(res,
                          "data: {\"content\": \"a\"}\n\n"
                          "data: {\"content\": \"b\", \"timings\": {\"prompt_n\": \"many\"}}\n\n");
  });
  s.routes().Post("/v1/completions", [](const httplib::Request&, httplib::Response& res) {
    HostileServer::stream(res,
                          "data: {\"choices\": [{\"text\": \"a\"}], "
                          "\"usage\": {\"prompt_tokens\": [1]}}\n\n");
  });
  const ServerAddress addr = s.start();
  CompletionRequest req;
  req.prompt = {1, 2, 3};
  const CompletionResult native = ServeClient(addr, 10, Api::kLlama).complete(req, nullptr);
  EXPECT_FALSE(native.ok);
  EXPECT_NE(native.error.find("cannot read"), std::string::npos) << native.error;
  EXPECT_GE(native.generated, 1);  // what streamed before the bad field is kept
  const CompletionResult openai = ServeClient(addr, 10, Api::kOpenAi).complete(req, nullptr);
  EXPECT_FALSE(openai.ok);
  EXPECT_NE(openai.error.find("cannot read"), std::string::npos) << openai.error;
}

TEST(HostileServer, AnEventThatNeverEndsIsCutOffNotBuffered) {
  HostileServer s;
  s.routes().Post("/completion", [](const httplib::Request&, httplib::Response& res) {
    // 17 MiB of one "data:" line with no blank line after it.
    HostileServer::stream(res, "data: " + std::string(17u << 20, 'x'));
  });
  CompletionRequest req;
  req.prompt = {1};
  const CompletionResult r = ServeClient(s.start(), 30, Api::kLlama).complete(req, nullptr);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("without ending an event"), std::string::npos) << r.error;
}

// Issue 20, defect 2: /health, /tokenize and /metrics that never end were
// read into memory without bound (~300 MB/s); one that trickled held forever.
TEST(HostileServer, AnswersThatNeverEndAreCutAtTheirCap) {
  HostileServer s;
  s.routes().Get("/health", [&](const httplib::Request&, httplib::Response& res) {
    s.endless(res, std::string(64u << 10, 'h'), std::chrono::milliseconds(0));
  });
  s.routes().Post("/tokenize", [&](const httplib::Request&, httplib::Response& res) {
    s.endless(res, std::string(64u << 10, 't'), std::chrono::milliseconds(0));
  });
  s.routes().Get("/metrics", [&](const httplib::Request&, httplib::Response& res) {
    s.endless(res, std::string(64u << 10, 'm'), std::chrono::milliseconds(0));
  });
  const ServeClient client(s.start(), 30);
  // The message gives what had arrived when the cap was seen: the cap, or up
  // to a read past it (a slower build, under ASan, reads bigger chunks).
  expect_user_error([&] { client.check_reachable(); }, "the server sent more than 1");
  expect_user_error([&] { client.tokenize("a"); }, "the server sent more than 6");
  EXPECT_TRUE(client.metrics().empty());
  s.stop_endless();
}

TEST(HostileServer, AnAnswerThatTricklesEndsAtItsDeadline) {
  HostileServer s;
  s.routes().Get("/health", [&](const httplib::Request&, httplib::Response& res) {
    s.endless(res, "h", std::chrono::milliseconds(500));
  });
  const ServeClient client(s.start(), 30);
  expect_user_error([&] { client.check_reachable(); }, "no complete answer within 5.0 s");
  s.stop_endless();
}

TEST(HostileServer, HeadersWithoutEndAreCutAtTheSocketsByteCap) {
  HeaderFlood flood;
  const ServeClient client(flood.address(), 30);
  expect_user_error([&] { client.check_reachable(); }, "the server sent more than");
}

// llama-server binds its port before it loads the model and answers /health
// with 503 meanwhile: serve-bench --url started beside it waits (up to
// --ready-timeout) instead of failing at once; any other answer fails at once.
TEST(HostileServer, AServerStillLoadingIsWaitedForUpToTheReadyTimeout) {
  HostileServer s;
  std::atomic<int> asked{0};
  s.routes().Get("/health", [&](const httplib::Request&, httplib::Response& res) {
    res.status = ++asked <= 3 ? 503 : 200;
    res.set_content(res.status == 503 ? R"({"error": {"message": "Loading model"}})" : "{}",
                    "application/json");
  });
  const ServerAddress addr = s.start();
  int told = 0;
  ServeClient::wait_healthy(addr, std::chrono::seconds(30), nullptr, [&] { ++told; });
  EXPECT_EQ(asked.load(), 4);
  EXPECT_EQ(told, 1);
  asked = -1000;  // 503 from now on: the wait ends at its limit, saying what to raise
  expect_user_error([&] { ServeClient::wait_healthy(addr, std::chrono::seconds(1)); },
                    "(HTTP 503, still after 1 s)");
}

// A server that takes requests and never finishes one (a keep-alive comment
// every 100 ms, no token): after 3 timeouts in a row the rest of the workload
// is recorded as not sent, instead of waiting out the timeout for each.
TEST(HostileServer, AHungServerEndsTheWorkloadAfterThreeTimeoutsInARow) {
  HostileServer s;
  s.routes().Post("/v1/completions", [&](const httplib::Request&, httplib::Response& res) {
    s.endless(res, ": ping\n\n", std::chrono::milliseconds(100));
  });
  const ServeClient client(s.start(), 1, Api::kOpenAi);
  Workload w;
  w.name = w.kind = "batch";
  w.system_tokens = 8;
  w.suffix_tokens = 8;
  w.requests = 8;
  w.n_predict = 4;
  const WorkloadRun run = run_workload(w, client, RunHooks{});
  ASSERT_EQ(run.requests.size(), 8u);
  for (size_t i = 0; i < run.requests.size(); ++i) {
    const CompletionResult& r = run.requests[i].r;
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.timed_out, i < 3) << i << ": " << r.error;
    if (i >= 3) {
      EXPECT_NE(r.error.find("not sent: the server answered none of the last 3"), std::string::npos)
          << r.error;
    }
  }
  s.stop_endless();
}

// Ctrl-C reaches a blocked exchange: /tokenize (a 30 s request timeout) that
// trickles is given up as "interrupted" (exit 130), not after its deadline.
TEST(HostileServer, AnInterruptStopsABlockedExchange) {
  HostileServer s;
  std::atomic<bool> arrived{false};
  s.routes().Post("/tokenize", [&](const httplib::Request&, httplib::Response& res) {
    arrived = true;
    s.endless(res, "t", std::chrono::milliseconds(500));
  });
  g_interrupted = false;
  const ServeClient client(s.start(), 30, Api::kLlama, interrupted_flag);
  std::thread ctrl_c([&arrived] {
    // Ctrl-C once the request is at the server: the exchange is blocked then.
    for (int i = 0; i < 6000 && !arrived; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    g_interrupted = true;
  });
  try {
    client.tokenize("a");
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(e.exit_code(), 130) << e.problem();  // not "no complete answer within 30 s"
  }
  ctrl_c.join();
  s.stop_endless();
}

// Through the CLI: serve-bench --url at a server whose /health trickles;
// SIGINT ends the run as interrupted (exit 130) instead of being ignored.
TEST(HostileServer, ServeBenchAtATricklingServerStopsOnSigint) {
  HostileServer s;
  std::atomic<bool> asked{false};
  s.routes().Get("/health", [&](const httplib::Request&, httplib::Response& res) {
    asked = true;
    s.endless(res, "h", std::chrono::milliseconds(200));
  });
  s.routes().Post("/tokenize", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(R"({"tokens": [1]})", "application/json");
  });
  const ServerAddress addr = s.start();
  const auto dir = test::scratch_dir();
  const pid_t pid = test::spawn_cli(
      "serve-bench --url " + addr.text() + " --no-db --out-dir " + (dir / "runs").string(),
      dir / "out", dir / "err");
  // Ready once /health is asked: the run has begun (meta.json "running") and
  // its Ctrl-C handler was set before the run directory was made.
  for (int i = 0; i < 6000 && !asked; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(asked.load()) << "serve-bench never asked /health";
  ::kill(pid, SIGINT);
  const int code = test::wait_exit_code(pid, std::chrono::seconds(60));
  std::ifstream err(dir / "err");
  const std::string text(std::istreambuf_iterator<char>(err), {});
  EXPECT_EQ(code, 130) << text;
  // Handled, not killed: the run says so (the default action would leave "running").
  EXPECT_EQ(read_run_meta(test::only_run_dir(dir / "runs")).status, RunStatus::kInterrupted)
      << text;
  s.stop_endless();
}

// Issue 20, defect 2: workload sizes in 64 bits, checked against the slot a
// server gives each request before anything starts.
TEST(WorkloadSizes, AWorkloadThatDoesNotFitTheServersSlotsIsRefusedFirst) {
  Workload w;
  w.name = "w";
  w.kind = "multi-turn";
  w.system_tokens = 1024;
  w.suffix_tokens = 262144;
  w.requests = 8200;
  EXPECT_EQ(w.max_prompt_tokens(), 1024 + int64_t{8200} * (262144 + 16));  // was int overflow
  expect_user_error([&] { check_workloads_fit({w}, 1 << 20, "the server at X"); },
                    "needs 2149713040 tokens of context per request");
  const auto dir = test::scratch_dir();
  const auto r = test::run_cli("serve-bench --gguf " + (dir / "none.gguf").string() +
                               " --no-db -w prompt-cache --out-dir " + (dir / "runs").string() +
                               " -- -c 256 --parallel 1");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("workload prompt-cache needs"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("llama-server -c 256 --parallel 1"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "runs")) << "a run directory was made";
}

}  // namespace
}  // namespace moesweep
