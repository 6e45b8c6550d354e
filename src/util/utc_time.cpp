#include "util/utc_time.hpp"

#include <fmt/chrono.h>

#include <chrono>

namespace moesweep {

std::string utc_now_iso8601() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}",
                     std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
}

std::string utc_now_compact() {
  return fmt::format("{:%Y%m%dT%H%M%SZ}",
                     std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
}

}  // namespace moesweep
