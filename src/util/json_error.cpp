#include "util/json_error.hpp"

#include <string_view>

namespace moesweep {

std::string json_error_text(const std::exception& e) {
  std::string_view text = e.what();
  if (text.starts_with("[json.exception.")) {
    if (const size_t end = text.find("] "); end != std::string_view::npos)
      text.remove_prefix(end + 2);
  }
  return std::string(text);
}

}  // namespace moesweep
