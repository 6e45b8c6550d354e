#include "counters/callgrind_dump.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cstdint>
#include <fstream>
#include <vector>

#include "util/error.hpp"

namespace moesweep::counters {
namespace {

constexpr size_t kMaxLineBytes = 4096;
constexpr size_t kMaxEvents = 64;
constexpr std::string_view kClientRequest = "Client Request: ";

struct Reader {
  std::string_view where;
  size_t line_number = 0;

  [[noreturn]] void fail(const std::string& problem) const {
    throw UserError(fmt::format("{}:{}: {}", where, line_number, problem),
                    "a callgrind output file written by valgrind --tool=callgrind",
                    "rerun the sweep with --counters sim; a file edited or cut short cannot be "
                    "read");
  }

  uint64_t count(std::string_view word) const {
    if (word.empty() || word.size() > 20) fail(fmt::format("'{}' is not a count", word));
    uint64_t v = 0;
    for (char c : word) {
      if (!std::isdigit(static_cast<unsigned char>(c)))
        fail(fmt::format("'{}' is not a count", word));
      const uint64_t d = static_cast<uint64_t>(c - '0');
      if (v > (UINT64_MAX - d) / 10) fail(fmt::format("the count '{}' overflows 64 bits", word));
      v = v * 10 + d;
    }
    return v;
  }

  int64_t small(std::string_view word, const char* what) const {
    const uint64_t v = count(word);
    if (v > INT32_MAX) fail(fmt::format("{} {} is out of range", what, v));
    return static_cast<int64_t>(v);
  }
};

std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    const size_t start = i;
    while (i < s.size() && s[i] != ' ') ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

bool starts(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// "65536 B, 64 B, 4-way associative" (also "direct-mapped", "fully associative").
CacheGeometry geometry(std::string_view text, const Reader& r) {
  const std::vector<std::string_view> w = words(text);
  if (w.size() < 5 || w[1] != "B," || w[3] != "B,")
    r.fail(
        fmt::format("'{}' is not a cache description (SIZE B, LINE B, N-way associative)", text));
  CacheGeometry g;
  g.size_bytes = r.count(w[0]);
  const uint64_t line = r.count(w[2]);
  if (line == 0 || line > 4096 || g.size_bytes == 0 || g.size_bytes % line != 0)
    r.fail(fmt::format("'{}' has no whole number of lines", text));
  g.line_bytes = static_cast<int>(line);
  std::string_view assoc = w[4];
  if (assoc == "direct-mapped") {
    g.ways = 1;
  } else if (assoc == "fully" && w.size() >= 6 && w[5] == "associative") {
    const uint64_t lines = g.size_bytes / line;
    if (lines > (1u << 30)) r.fail(fmt::format("'{}' has too many lines", text));
    g.ways = static_cast<int>(lines);
  } else {
    const size_t dash = assoc.find("-way");
    if (dash == std::string_view::npos || w.size() < 6 || w[5] != "associative")
      r.fail(fmt::format("'{}' is not a cache description", text));
    const uint64_t ways = r.count(assoc.substr(0, dash));
    if (ways == 0 || ways > 65536) r.fail(fmt::format("'{}': {} ways", text, ways));
    g.ways = static_cast<int>(ways);
  }
  return g;
}

void read_desc(std::string_view desc, CallgrindDump& d, const Reader& r) {
  if (starts(desc, "I1 cache: ")) d.i1 = geometry(desc.substr(10), r);
  if (starts(desc, "D1 cache: ")) d.d1 = geometry(desc.substr(10), r);
  if (starts(desc, "LL cache: ")) d.ll = geometry(desc.substr(10), r);
  if (starts(desc, "Trigger: ")) d.trigger = std::string(desc.substr(9));
}

// The `summary:` numbers, one per event (a shorter line means zeros at the end).
void read_summary(std::string_view rest, const std::vector<std::string_view>& events,
                  CallgrindDump& d, const Reader& r) {
  if (events.empty()) r.fail("'summary:' before 'events:'");
  const std::vector<std::string_view> values = words(rest);
  if (values.size() > events.size())
    r.fail(fmt::format("'summary:' has {} counts for {} events", values.size(), events.size()));
  for (size_t i = 0; i < events.size(); ++i)
    d.totals[std::string(events[i])] = i < values.size() ? r.count(values[i]) : 0;
}

// One header line; false at the first line of the body (the costs).
bool header_line(std::string_view line, CallgrindDump& d, std::vector<std::string_view>& events,
                 Reader& r) {
  if (line.empty() || line.front() == '#') return true;
  const size_t colon = line.find(": ");
  if (colon == std::string_view::npos) return false;  // "fn=...", "ob=...", cost lines
  const std::string_view key = line.substr(0, colon), rest = line.substr(colon + 2);
  if (key == "version" && rest != "1") r.fail(fmt::format("format version '{}', not 1", rest));
  if (key == "creator") d.creator = std::string(rest.substr(0, 64));
  if (key == "pid") d.pid = r.small(rest, "pid");
  if (key == "part") d.part = r.small(rest, "part");
  if (key == "desc") read_desc(rest, d, r);
  if (key == "events") {
    if (!events.empty()) r.fail("a second 'events:' line");
    events = words(rest);
    if (events.empty() || events.size() > kMaxEvents)
      r.fail(fmt::format("'events:' names {} events (1 to {})", events.size(), kMaxEvents));
    for (std::string_view e : events)
      if (e.size() > 32) r.fail(fmt::format("event name '{}' is too long", e.substr(0, 32)));
  }
  if (key == "summary") read_summary(rest, events, d, r);
  return true;
}

}  // namespace

std::string CallgrindDump::label() const {
  return starts(trigger, kClientRequest) ? trigger.substr(kClientRequest.size()) : "";
}

CallgrindDump parse_callgrind_dump(std::string_view text, const std::string& where) {
  Reader r{where};
  CallgrindDump d;
  std::vector<std::string_view> events;
  if (text.size() > kMaxCallgrindHeaderBytes) text = text.substr(0, kMaxCallgrindHeaderBytes);
  bool body = false;
  for (size_t pos = 0; pos < text.size() && !body;) {
    const size_t nl = text.find('\n', pos);
    const bool cut = nl == std::string_view::npos;
    const std::string_view line = text.substr(pos, (cut ? text.size() : nl) - pos);
    ++r.line_number;
    if (line.size() > kMaxLineBytes)
      r.fail(fmt::format("a header line of more than {} bytes", kMaxLineBytes));
    for (char c : line)
      if (c == '\0' || c == '\r') r.fail("a NUL or CR byte in the header");
    if (cut && text.size() == kMaxCallgrindHeaderBytes)
      r.fail(fmt::format("no end of the header within {} bytes", kMaxCallgrindHeaderBytes));
    body = !header_line(line, d, events, r);
    pos = cut ? text.size() : nl + 1;
  }
  if (d.creator.rfind("callgrind", 0) != 0)
    r.fail(d.creator.empty() ? "no 'creator:' line: not callgrind's output"
                             : fmt::format("written by '{}', not callgrind", d.creator));
  if (d.totals.empty()) r.fail("no 'summary:' line (the file is cut short or not callgrind's)");
  return d;
}

CallgrindDump read_callgrind_dump(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw UserError(fmt::format("cannot read the callgrind output '{}'", file.string()),
                    "a readable file", "check the sweep's temporary folder and its permissions");
  std::string text(kMaxCallgrindHeaderBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  // Longer files have a body after the header: only the header is read.
  if (text.size() > kMaxCallgrindHeaderBytes) text.resize(kMaxCallgrindHeaderBytes);
  return parse_callgrind_dump(text, file.string());
}

}  // namespace moesweep::counters
