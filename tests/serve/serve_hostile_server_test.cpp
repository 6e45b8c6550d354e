// A server's answers are input too: a real HTTP server on loopback (cpp-httplib,
// started by the test) that answers with ill-typed fields, tokens that are no
// ids, and an event that never ends. The client turns each into a clear error
// (UserError exit 2 for /tokenize, a failed request for a completion) and never
// an exception through the HTTP library or a crash.
#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "serve/serve_client.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

// One loopback server whose routes the test sets; stopped and joined on scope exit.
class HostileServer {
 public:
  HostileServer() { port_ = svr_.bind_to_any_port("127.0.0.1"); }
  ~HostileServer() {
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
};

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

}  // namespace
}  // namespace moesweep
