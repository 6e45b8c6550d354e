#include "util/json_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>

#include "util/error.hpp"
#include "util/json_error.hpp"

namespace moesweep {

void require_regular_file(const std::filesystem::path& path, std::string_view what) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) {
    throw UserError(
        fmt::format("{} '{}' not found or not readable{}", what, path.string(),
                    ec && ec != std::errc::no_such_file_or_directory ? ": " + ec.message() : ""),
        "an existing file", "check the name; `moesweep list` shows the shipped ones");
  }
  if (!std::filesystem::is_regular_file(status)) {
    throw UserError(fmt::format("{} '{}' is not a regular file", what, path.string()),
                    "a file (not a directory, FIFO or device)", "name the file itself");
  }
}

std::string read_text_file(const std::filesystem::path& path, std::string_view what,
                           uint64_t max_bytes) {
  require_regular_file(path, what);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw UserError(
        fmt::format("{} '{}' is not readable: {}", what, path.string(), std::strerror(errno)),
        "a file this user can read", "fix its permissions");
  }
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    if (text.size() + static_cast<uint64_t>(in.gcount()) > max_bytes) {
      throw UserError(
          fmt::format("{} '{}' is larger than {} MiB", what, path.string(), max_bytes >> 20),
          fmt::format("at most {} MiB (moesweep's own files are far smaller)", max_bytes >> 20),
          "check that it is the file you meant");
    }
    text.append(buf, static_cast<size_t>(in.gcount()));
  }
  return text;
}

nlohmann::json read_json_file(const std::filesystem::path& path, std::string_view what,
                              uint64_t max_bytes) {
  return parse_json_text(read_text_file(path, what, max_bytes),
                         fmt::format("{} '{}'", what, path.string()));
}

int json_nesting_depth(std::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

nlohmann::json parse_json_text(std::string_view text, std::string_view origin) {
  if (const int depth = json_nesting_depth(text); depth > kMaxJsonDepth) {
    throw UserError(
        fmt::format("{} nests arrays/objects {} levels deep", origin, depth),
        fmt::format("at most {} levels (moesweep's own files use about 5)", kMaxJsonDepth),
        "check that it is the file you meant; regenerate it or flatten the structure");
  }
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // a syntax error, or a number past a double
    throw UserError(fmt::format("{} is not valid JSON: {}", origin, json_error_text(e)),
                    "a JSON object", "fix the syntax at the line and column the parser names");
  }
}

nlohmann::json parse_json_or_discarded(std::string_view text) {
  if (json_nesting_depth(text) > kMaxJsonDepth)
    return nlohmann::json(nlohmann::json::value_t::discarded);
  return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
}

namespace {
template <typename T>
const char* type_name() {
  if constexpr (std::is_same_v<T, std::string>) return "a string";
  if constexpr (std::is_same_v<T, bool>) return "true or false";
  if constexpr (std::is_floating_point_v<T>) return "a number";
  if constexpr (std::is_integral_v<T>) return "an integer";
  return "a value";
}

// An integer JSON value that fits T (nlohmann stores it as int64 or uint64).
template <typename T>
bool integer_fits(const nlohmann::json& v) {
  if (v.is_number_unsigned())
    return v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<T>::max());
  if (!v.is_number_integer()) return false;
  const int64_t i = v.get<int64_t>();
  if constexpr (std::is_unsigned_v<T>) return i >= 0;
  return i >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
         i <= static_cast<int64_t>(std::numeric_limits<T>::max());
}

template <typename T>
std::string expected_text() {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
    return fmt::format("an integer from {} to {}", std::numeric_limits<T>::min(),
                       std::numeric_limits<T>::max());
  return type_name<T>();
}

template <typename T>
T convert(const nlohmann::json& v, std::string_view key, std::string_view origin) {
  const bool ok = [&] {
    if constexpr (std::is_same_v<T, std::string>) return v.is_string();
    if constexpr (std::is_same_v<T, bool>) return v.is_boolean();
    if constexpr (std::is_floating_point_v<T>) return v.is_number();
    if constexpr (std::is_integral_v<T>) return integer_fits<T>(v);
    return true;
  }();
  if (!ok) {
    const std::string text = v.dump();
    throw UserError(fmt::format("{}: field '{}' is {:.80}", origin, key, text), expected_text<T>(),
                    fmt::format("correct '{}' in {}", key, origin));
  }
  return v.get<T>();
}
}  // namespace

template <typename T>
T require_field(const nlohmann::json& obj, std::string_view key, std::string_view origin) {
  auto it = obj.find(std::string(key));
  if (it == obj.end()) {
    throw UserError(fmt::format("{}: required field '{}' is missing", origin, key), type_name<T>(),
                    fmt::format("add \"{}\" to {}", key, origin));
  }
  return convert<T>(*it, key, origin);
}

template <typename T>
T optional_field(const nlohmann::json& obj, std::string_view key, T fallback,
                 std::string_view origin) {
  auto it = obj.find(std::string(key));
  return it == obj.end() || it->is_null() ? fallback : convert<T>(*it, key, origin);
}

#define MOESWEEP_FIELD(T)                                                                 \
  template T require_field<T>(const nlohmann::json&, std::string_view, std::string_view); \
  template T optional_field<T>(const nlohmann::json&, std::string_view, T, std::string_view);
MOESWEEP_FIELD(std::string)
MOESWEEP_FIELD(bool)
MOESWEEP_FIELD(double)
MOESWEEP_FIELD(int64_t)
MOESWEEP_FIELD(uint64_t)
MOESWEEP_FIELD(int)
#undef MOESWEEP_FIELD

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      throw UserError(fmt::format("cannot write '{}'", path.string()), "a writable directory",
                      "choose another output path or fix the directory's permissions");
    }
    out << content;
    out.flush();
    if (!out)
      throw UserError(fmt::format("writing '{}' failed (disk full?)", path.string()), "",
                      "free space and retry");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    const std::string why = ec.message();
    std::filesystem::remove(tmp, ec);
    throw UserError(fmt::format("cannot replace '{}': {}", path.string(), why),
                    "a file path in a writable directory (not a directory itself)",
                    "choose another output path or fix the directory's permissions");
  }
}

}  // namespace moesweep
