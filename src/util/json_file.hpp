#pragma once
// Reading JSON data files (profiles, meta.json) with errors that name the file,
// the line and the fix instead of a bare parser exception.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace moesweep {

// Deeper than any file of ours (meta.json nests about 5 levels). nlohmann's
// parser is iterative, but copying, dumping and comparing a value recurse, so
// a 100k-level file would overflow the stack: it is refused before parsing.
inline constexpr int kMaxJsonDepth = 64;
// Larger than any JSON file of ours (a merged fleet's meta.json lists every
// missing point key: a few MiB); /dev/zero or a multi-GB file is refused.
inline constexpr uint64_t kMaxJsonFileBytes = 64ull << 20;

// The whole of a regular file of at most `max_bytes`; UserError (naming
// `what` and the path) for a missing, unreadable, special (a FIFO,
// /dev/zero, a directory) or larger file. Never reads past `max_bytes`.
// UserError unless `path` is an existing regular file (what read_text_file checks).
void require_regular_file(const std::filesystem::path& path, std::string_view what);
std::string read_text_file(const std::filesystem::path& path, std::string_view what,
                           uint64_t max_bytes);
nlohmann::json read_json_file(const std::filesystem::path& path, std::string_view what,
                              uint64_t max_bytes = kMaxJsonFileBytes);
// Parses `text` (from `origin`, named in the error); UserError when it is not
// JSON or nests deeper than kMaxJsonDepth.
nlohmann::json parse_json_text(std::string_view text, std::string_view origin);
// The same without exceptions: a discarded value (is_discarded()) for text
// that is not JSON or nests too deep, as nlohmann's parse(text, nullptr, false).
nlohmann::json parse_json_or_discarded(std::string_view text);
// The deepest nesting of arrays and objects in `text` (strings skipped).
int json_nesting_depth(std::string_view text);

// Typed field access: a missing or mistyped field is a UserError naming the
// file (`origin`), the field and the type wanted. Integers must fit T: a
// value outside its range is refused, never narrowed (2^32 + 1 is not 1).
template <typename T>
T require_field(const nlohmann::json& obj, std::string_view key, std::string_view origin);
template <typename T>
T optional_field(const nlohmann::json& obj, std::string_view key, T fallback,
                 std::string_view origin);

// Writes via a temporary file and rename, so a reader never sees half a file.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace moesweep
