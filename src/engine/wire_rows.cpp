#include "engine/wire_rows.hpp"

#include <fmt/format.h>

namespace moesweep::worker_protocol {

void raise_protocol_error(const std::string& problem, const std::string& expected,
                          const std::string& /*fix: about files*/) {
  throw ProtocolError(fmt::format("{} (expected {})", problem, expected));
}

std::string read_text(const JsonFields& f, const char* key, size_t max_bytes) {
  std::string s = f.text(key);
  if (s.size() > max_bytes) f.fail(key, fmt::format("a string of at most {} bytes", max_bytes));
  return s;
}

std::vector<std::string> read_texts(const JsonFields& f, const char* key, size_t max_items,
                                    size_t max_bytes) {
  const nlohmann::json& list = f.array(key);
  if (list.size() > max_items) f.fail(key, fmt::format("at most {} strings", max_items));
  std::vector<std::string> out = f.texts(key);
  for (const std::string& s : out)
    if (s.size() > max_bytes)
      f.fail(key, fmt::format("strings of at most {} bytes each", max_bytes));
  return out;
}

std::vector<int32_t> read_ids(const JsonFields& f, const char* key, int64_t lo, int64_t hi,
                              size_t max_count) {
  const std::vector<int64_t> counts = f.integers(key, lo, hi - 1, max_count);
  return {counts.begin(), counts.end()};  // within [lo, hi): int32 by the caller's range
}

}  // namespace moesweep::worker_protocol
