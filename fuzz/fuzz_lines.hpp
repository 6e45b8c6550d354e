#pragma once
// The input cut into lines at '\n' (the last one also without its '\n'), as
// the engine worker's requests and answers travel: one JSON object a line.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace moesweep::fuzz {

template <typename F>
void for_each_line(const uint8_t* data, size_t size, F&& on_line) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (size_t at = 0; at < text.size();) {
    size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) nl = text.size();
    on_line(text.substr(at, nl - at));
    at = nl + 1;
  }
}

}  // namespace moesweep::fuzz
