#pragma once
// A byte stream of server-sent events (the WHATWG "text/event-stream"
// format), split into events as it arrives: lines end with "\n", "\r\n" or
// "\r" (also split across reads), a blank line ends an event, its "data:"
// lines are joined with "\n", comments (": ping") and other fields ("event:",
// "id:") are passed over, and an event without data is no event. Bounded: an
// event (its data and the line being read) longer than kMaxEventBytes stops
// the parser, since a server that never ends one would otherwise grow it for
// the whole request timeout. An event cut off by the end of the stream is
// never dispatched (the format's rule): the caller sees the stream end early.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace moesweep {

class SseParser {
 public:
  static constexpr size_t kMaxEventBytes = 16u << 20;
  using OnData = std::function<void(std::string_view data)>;

  // Feeds bytes; `on_data` gets each complete event's data. Nothing more is
  // read once overflowed().
  void feed(const char* bytes, size_t len, const OnData& on_data);
  bool overflowed() const { return overflowed_; }

 private:
  void end_line(const OnData& on_data);
  std::string line_;  // the line being read
  std::string data_;  // the event's data so far
  bool has_data_ = false;
  bool skip_lf_ = false;  // the last line ended with "\r": a "\n" next is its end too
  bool overflowed_ = false;
};

}  // namespace moesweep
