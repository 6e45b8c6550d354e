#include "serve/sse_parser.hpp"

#include <algorithm>

namespace moesweep {

void SseParser::feed(const char* bytes, size_t len, const OnData& on_data) {
  const char* at = bytes;
  const char* const end = bytes + len;
  while (at < end && !overflowed_) {
    if (skip_lf_) {
      skip_lf_ = false;
      if (*at == '\n') {
        ++at;
        continue;
      }
    }
    const char* eol = std::find_if(at, end, [](char c) { return c == '\n' || c == '\r'; });
    line_.append(at, eol);
    if (line_.size() + data_.size() > kMaxEventBytes) {
      overflowed_ = true;
      return;
    }
    if (eol == end) return;  // the line goes on in the next read
    skip_lf_ = *eol == '\r';
    at = eol + 1;
    end_line(on_data);
  }
}

void SseParser::end_line(const OnData& on_data) {
  std::string_view line = line_;
  if (line.empty()) {  // a blank line ends the event
    if (has_data_) on_data(data_);
    data_.clear();
    has_data_ = false;
  } else if (line.front() != ':') {  // a comment otherwise
    const size_t colon = line.find(':');
    const std::string_view field = line.substr(0, colon);
    std::string_view value = colon == std::string_view::npos ? "" : line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    if (field == "data") {
      if (has_data_) data_ += '\n';
      data_.append(value);
      has_data_ = true;
    }
  }
  line_.clear();
}

}  // namespace moesweep
