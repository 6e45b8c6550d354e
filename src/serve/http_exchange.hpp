#pragma once
// Every HTTP exchange serve-bench has with a server (/health, /tokenize,
// /metrics, /v1/models, /props, the completion streams) goes through here:
// a byte cap on what the server sends (counted at the socket, headers
// included, and on the body), a deadline for the whole exchange, and a stop
// on SIGINT/SIGTERM (`interrupted`) within about 0.1 s. A watchdog thread
// closes the client's socket when any of them is reached, so a server that
// never ends an answer, or trickles a byte every few seconds, cannot hold or
// fill moesweep. Connecting waits at most 1 s (a loopback or LAN server
// answers far sooner).
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

namespace moesweep {

struct ServerAddress;

struct HttpLimits {
  size_t max_bytes = 1u << 20;                // the answer's body (headers get 1 MiB more)
  std::chrono::milliseconds deadline{10000};  // the whole exchange
  std::function<bool()> interrupted;          // polled; true stops the exchange
};

struct HttpRequest {
  std::string method = "GET", path = "/", body;
  // Streams: called with each piece of the body as it arrives (nothing is
  // kept in `HttpAnswer::body` then); false stops the exchange.
  std::function<bool(const char*, size_t)> on_body;
};

struct HttpAnswer {
  bool answered = false;  // a status line and headers arrived
  int status = 0;
  std::string body;     // unless streamed
  std::string stopped;  // why the exchange was cut short ("" when it ran its course)
  std::string error;    // the transport's error ("" when answered)
  // "HTTP 200", or why there is no answer (the cut or the transport error).
  std::string what() const;
};

HttpAnswer http_exchange(const ServerAddress& addr, const HttpRequest& req,
                         const HttpLimits& limits);

// Bytes the kernel has received on a TCP socket (TCP_INFO); 0 when unknown.
unsigned long long socket_bytes_received(int fd);

}  // namespace moesweep
