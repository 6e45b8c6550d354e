#include "counters/sim_cache.hpp"

#include <fmt/format.h>

#include <bit>
#include <cctype>

#include "util/error.hpp"
#include "util/parse_list.hpp"

namespace moesweep::counters {
namespace {

constexpr uint64_t kMaxCacheBytes = 64ull << 30;  // beyond any cache: a typo
// valgrind keeps a cache's size in a signed 32-bit int: 2 GiB and up is
// refused by it ("One of the cache parameters was too large and overflowed").
constexpr uint64_t kValgrindMaxCacheBytes = (1ull << 31) - 1;

const char* const kSyntax = "LL=SIZE,WAYS[,LINE] D1=SIZE,WAYS[,LINE] I1=SIZE,WAYS[,LINE]";

[[noreturn]] void bad(const std::string& flag, const std::string& problem) {
  throw UserError(fmt::format("{}: {}", flag, problem), kSyntax,
                  fmt::format("e.g. {} 'LL=32MiB,16 D1=32KiB,8'", flag));
}

int small_int(const std::string& text, const std::string& flag, const char* what) {
  int v = 0;
  if (text.empty() || text.size() > 4)
    bad(flag, fmt::format("{} '{}' is not a number", what, text));
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c)))
      bad(flag, fmt::format("{} '{}' is not a number", what, text));
    v = v * 10 + (c - '0');
  }
  return v;
}

// valgrind's own limits (cachegrind's check_cache and its option parser),
// checked here so that it never refuses them after the sweep has started.
void check_level(const std::string& name, const CacheGeometry& g, const std::string& flag) {
  if (g.size_bytes > kValgrindMaxCacheBytes)
    bad(flag, fmt::format("{}: {} is above the largest cache valgrind simulates, 2 GiB - 1 B (it "
                          "keeps a cache's size in 32 bits)",
                          name, geometry_text(g)));
  if (g.ways < 1 || g.ways > 1024)
    bad(flag, fmt::format("{}: {} ways is outside 1-1024", name, g.ways));
  if (g.line_bytes < 16 || g.line_bytes > 512 || !std::has_single_bit(unsigned(g.line_bytes)))
    bad(flag, fmt::format("{}: a line of {} bytes is not a power of two from 16 to 512", name,
                          g.line_bytes));
  if (g.size_bytes <= uint64_t(g.line_bytes))
    bad(flag, fmt::format("{}: {} is not larger than one {}-byte line (valgrind needs it larger)",
                          name, geometry_text(g), g.line_bytes));
  const uint64_t set_bytes = uint64_t(g.ways) * uint64_t(g.line_bytes);
  if (g.size_bytes % set_bytes != 0 || !std::has_single_bit(g.size_bytes / set_bytes))
    bad(flag, fmt::format("{}: {} in {}-way sets of {}-byte lines is not a power-of-two number "
                          "of sets (valgrind needs one)",
                          name, geometry_text(g), g.ways, g.line_bytes));
}

CacheGeometry parse_level(const std::string& name, const std::string& value,
                          const std::string& flag) {
  const std::vector<std::string> parts = split_list(value, ',');
  if (parts.size() < 2 || parts.size() > 3)
    bad(flag, fmt::format("{}='{}' is not SIZE,WAYS[,LINE]", name, value));
  CacheGeometry g;
  g.size_bytes = parse_cache_size(parts[0], flag);
  g.ways = small_int(parts[1], flag, "ways");
  if (parts.size() == 3) g.line_bytes = small_int(parts[2], flag, "line bytes");
  check_level(name, g, flag);
  return g;
}

std::string args_of(const CacheGeometry& g) {
  return fmt::format("{},{},{}", g.size_bytes, g.ways, g.line_bytes);
}

}  // namespace

uint64_t parse_cache_size(const std::string& text, const std::string& flag) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 12)
    bad(flag, fmt::format("'{}' is not a size (e.g. 32MiB, 48KiB)", text));
  const uint64_t n = std::stoull(text.substr(0, digits));
  const std::string unit = text.substr(digits);
  uint64_t scale = 0;
  if (unit.empty() || unit == "B") scale = 1;
  if (unit == "K" || unit == "KiB" || unit == "k") scale = 1ull << 10;
  if (unit == "M" || unit == "MiB") scale = 1ull << 20;
  if (unit == "G" || unit == "GiB") scale = 1ull << 30;
  if (scale == 0) bad(flag, fmt::format("'{}': unknown unit '{}' (B, KiB, MiB, GiB)", text, unit));
  if (n == 0 || n > kMaxCacheBytes / scale)
    bad(flag, fmt::format("'{}' is outside 1 B - 64 GiB", text));
  return n * scale;
}

SimCacheConfig parse_sim_cache(const std::string& text, const std::string& flag) {
  SimCacheConfig c;
  std::string spaced = text;
  for (char& ch : spaced)
    if (ch == ';' || ch == '\t') ch = ' ';
  bool seen_ll = false, seen_d1 = false, seen_i1 = false;
  for (const std::string& item : split_list(spaced, ' ')) {
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string::npos) bad(flag, fmt::format("'{}' has no '='", item));
    const std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    bool* seen = name == "LL"   ? &seen_ll
                 : name == "D1" ? &seen_d1
                 : name == "I1" ? &seen_i1
                                : nullptr;
    if (!seen) bad(flag, fmt::format("unknown cache level '{}' (LL, D1 or I1)", name));
    if (*seen) bad(flag, fmt::format("{} given twice", name));
    *seen = true;
    (name == "LL" ? c.ll : name == "D1" ? c.d1 : c.i1) = parse_level(name, value, flag);
  }
  for (const CacheGeometry* l1 : {&c.d1, &c.i1})
    if (c.ll.line_bytes > l1->line_bytes || c.ll.size_bytes < l1->size_bytes)
      bad(flag, fmt::format("the LL ({}, {}-byte lines) must be at least as large as D1 and I1, "
                            "with lines no longer than theirs",
                            geometry_text(c.ll), c.ll.line_bytes));
  return c;
}

std::string geometry_text(const CacheGeometry& g) {
  const uint64_t b = g.size_bytes;
  std::string size;
  if (b >= (1ull << 30) && b % (1ull << 30) == 0)
    size = fmt::format("{} GiB", b >> 30);
  else if (b >= (1ull << 20) && b % (1ull << 20) == 0)
    size = fmt::format("{} MiB", b >> 20);
  else if (b >= 1024 && b % 1024 == 0)
    size = fmt::format("{} KiB", b >> 10);
  else
    size = fmt::format("{} B", b);
  return fmt::format("{} {}-way", size, g.ways);
}

std::string sim_cache_label(const SimCacheConfig& c) {
  return "LL " + geometry_text(c.ll);
}

std::string sim_cache_text(const SimCacheConfig& c) {
  const auto level = [](const char* name, const CacheGeometry& g) {
    return fmt::format("{}={}B,{},{}", name, g.size_bytes, g.ways, g.line_bytes);
  };
  return level("LL", c.ll) + " " + level("D1", c.d1) + " " + level("I1", c.i1);
}

std::vector<std::string> valgrind_cache_args(const SimCacheConfig& c) {
  return {"--I1=" + args_of(c.i1), "--D1=" + args_of(c.d1), "--LL=" + args_of(c.ll)};
}

}  // namespace moesweep::counters
