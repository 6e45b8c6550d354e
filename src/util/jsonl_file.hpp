#pragma once
// JSON Lines files of ours (records.jsonl, samples.jsonl, requests.jsonl).
// Every writer ends a line with '\n' after the whole line, so a last line
// without its newline that is not JSON is what a killed writer left: a torn
// line. Readers skip it and say so; a run that continues (--resume, a
// re-queued shard) cuts it off first and keeps its bytes beside the file, so
// the next line is never glued onto it. Reads are bounded per line and per file.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace moesweep {

// One record is a few KiB; a line past this is no line of ours.
inline constexpr size_t kMaxJsonlLineBytes = 16u << 20;
inline constexpr uint64_t kMaxJsonlFileBytes = 4ull << 30;

struct JsonlLine {
  size_t number = 0;     // 1-based line number in the file
  nlohmann::json value;  // depth-checked; is_discarded() when the line is not JSON
};

struct TornLine {
  size_t number = 0;    // its line number
  uint64_t offset = 0;  // its first byte in the file
  std::string bytes;    // what the killed writer left
};

struct JsonlFile {
  std::vector<JsonlLine> lines;  // every non-blank line but a torn last one
  std::optional<TornLine> torn;
};

// Streams `path` line by line to `on_line` (blank lines skipped; a torn last
// line returned, not passed), so a reader keeps only what it makes of each
// line; UserError as read_jsonl_file.
std::optional<TornLine> for_each_jsonl_line(const std::filesystem::path& path,
                                            std::string_view what,
                                            const std::function<void(JsonlLine&&)>& on_line);
// Reads `path`; UserError (naming `what` and the path) when it is missing,
// not a regular file, or past the caps.
JsonlFile read_jsonl_file(const std::filesystem::path& path, std::string_view what);
// The same from a stream of the file's bytes, `path` naming it in errors
// (read_jsonl_file opens the file and calls this).
JsonlFile read_jsonl(std::istream& in, const std::filesystem::path& path, std::string_view what);

// "FILE:N ends in a torn line (B bytes) ...": the note readers print.
std::string torn_line_note(const std::filesystem::path& path, const TornLine& torn);

// Before appending to `path` again: a torn last line is cut off (truncated
// away) and its bytes appended to <path>.torn; a complete last line without
// its newline gets one. Returns the torn line removed; nullopt when there was
// none (or no file).
std::optional<TornLine> repair_jsonl_tail(const std::filesystem::path& path);
// The same for a line file that is not JSON (records.csv): any last line
// without its newline is torn.
std::optional<TornLine> repair_text_tail(const std::filesystem::path& path);

}  // namespace moesweep
