#include "util/jsonl_file.hpp"

#include <fmt/format.h>

#include <fstream>
#include <utility>

#include "util/error.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

bool blank(std::string_view text) {
  return text.find_first_not_of(" \t\r") == std::string_view::npos;
}

UserError too_large(const std::filesystem::path& path, std::string_view what,
                    const std::string& why, const std::string& limit) {
  return UserError(fmt::format("{} '{}' {}", what, path.string(), why), limit,
                   "check that it is the file you meant; a file of ours never gets there");
}

// Streams the file in blocks, calling on_line(text, number, offset, ended)
// for each line; `ended` is false for a last line without '\n'.
template <typename F>
void for_each_line(std::istream& in, const std::filesystem::path& path, std::string_view what,
                   F&& on_line) {
  std::string line, block(1 << 16, '\0');
  uint64_t offset = 0, line_start = 0;
  size_t number = 1;
  while (in.read(block.data(), static_cast<std::streamsize>(block.size())) || in.gcount() > 0) {
    const size_t got = static_cast<size_t>(in.gcount());
    if (offset + got > kMaxJsonlFileBytes)
      throw too_large(path, what, "is larger than 4 GiB", "at most 4 GiB of JSON lines");
    size_t from = 0;
    for (size_t i = 0; i < got; ++i) {
      if (block[i] != '\n') continue;
      line.append(block.data() + from, i - from);
      if (line.size() > kMaxJsonlLineBytes) break;
      on_line(line, number++, line_start, true);
      line.clear();
      from = i + 1;
      line_start = offset + from;
    }
    line.append(block.data() + from, got - from);
    if (line.size() > kMaxJsonlLineBytes)
      throw too_large(path, what, fmt::format("has a line {} longer than 16 MiB", number),
                      "lines of at most 16 MiB (one record is a few KiB)");
    offset += got;
  }
  if (!line.empty()) on_line(line, number, line_start, false);
}

template <typename F>
void for_each_line(const std::filesystem::path& path, std::string_view what, F&& on_line) {
  require_regular_file(path, what);
  std::ifstream in(path, std::ios::binary);
  for_each_line(in, path, what, std::forward<F>(on_line));
}

}  // namespace

JsonlFile read_jsonl_file(const std::filesystem::path& path, std::string_view what) {
  require_regular_file(path, what);
  std::ifstream in(path, std::ios::binary);
  return read_jsonl(in, path, what);
}

namespace {

std::optional<TornLine> stream_jsonl(std::istream& in, const std::filesystem::path& path,
                                     std::string_view what,
                                     const std::function<void(JsonlLine&&)>& on_line) {
  std::optional<TornLine> torn;
  for_each_line(in, path, what,
                [&](const std::string& text, size_t number, uint64_t offset, bool ended) {
                  if (blank(text)) return;
                  nlohmann::json value = parse_json_or_discarded(text);
                  // A killed writer leaves a prefix of a line: never JSON, never ended.
                  if (!ended && value.is_discarded()) {
                    torn = TornLine{number, offset, text};
                    return;
                  }
                  on_line({number, std::move(value)});
                });
  return torn;
}

}  // namespace

JsonlFile read_jsonl(std::istream& in, const std::filesystem::path& path, std::string_view what) {
  JsonlFile file;
  file.torn = stream_jsonl(in, path, what,
                           [&](JsonlLine&& line) { file.lines.push_back(std::move(line)); });
  return file;
}

std::optional<TornLine> for_each_jsonl_line(const std::filesystem::path& path,
                                            std::string_view what,
                                            const std::function<void(JsonlLine&&)>& on_line) {
  require_regular_file(path, what);
  std::ifstream in(path, std::ios::binary);
  return stream_jsonl(in, path, what, on_line);
}

std::string torn_line_note(const std::filesystem::path& path, const TornLine& torn) {
  return fmt::format(
      "{}:{} ends in a torn line ({} bytes without a newline, as a killed run leaves it): "
      "left out",
      path.string(), torn.number, torn.bytes.size());
}

namespace {

// Appends the torn bytes to <path>.torn, then truncates them away.
void cut_torn_tail(const std::filesystem::path& path, const TornLine& torn) {
  const std::filesystem::path side = path.string() + ".torn";
  std::ofstream keep(side, std::ios::binary | std::ios::app);
  keep << fmt::format("# line {} at byte {} of {}\n", torn.number, torn.offset,
                      path.filename().string())
       << torn.bytes << '\n';
  keep.flush();
  if (!keep) {
    throw UserError(
        fmt::format("cannot keep the torn line of '{}' in '{}'", path.string(), side.string()),
        "a writable run directory", "free space or fix its permissions, then resume");
  }
  std::error_code ec;
  std::filesystem::resize_file(path, torn.offset, ec);
  if (ec) {
    throw UserError(
        fmt::format("cannot cut the torn line off '{}': {}", path.string(), ec.message()),
        "a writable run directory", "fix its permissions, then resume");
  }
}

std::optional<TornLine> repair_tail(const std::filesystem::path& path, bool json) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  std::optional<TornLine> torn;
  bool unended = false;
  for_each_line(path, "line file",
                [&](const std::string& text, size_t number, uint64_t offset, bool ended) {
                  if (ended || blank(text)) return;
                  if (!json || parse_json_or_discarded(text).is_discarded())
                    torn = TornLine{number, offset, text};
                  else
                    unended = true;
                });
  if (unended) std::ofstream(path, std::ios::binary | std::ios::app) << '\n';
  if (torn) cut_torn_tail(path, *torn);
  return torn;
}

}  // namespace

std::optional<TornLine> repair_jsonl_tail(const std::filesystem::path& path) {
  return repair_tail(path, true);
}

std::optional<TornLine> repair_text_tail(const std::filesystem::path& path) {
  return repair_tail(path, false);
}

}  // namespace moesweep
