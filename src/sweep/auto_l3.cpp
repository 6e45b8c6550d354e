#include "sweep/auto_l3.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "engine/engine_limits.hpp"
#include "hw/cache_probe.hpp"
#include "hw/topology.hpp"
#include "util/decimal_number.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

const char kAutoPrefix[] = "auto-l3:";

// The number text starts with, and how many characters it took (0: none).
double leading_number(const std::string& text, size_t* used) {
  *used = decimal_prefix_length(text);
  const std::optional<double> v = parse_decimal(std::string_view(text).substr(0, *used));
  if (!v) *used = 0;
  return v.value_or(0);
}

double positive_number(const std::string& text, const std::string& what) {
  size_t used = 0;
  const double v = leading_number(text, &used);
  if (used == 0 || used != text.size() || !(v > 0) || !std::isfinite(v)) {
    throw UserError(fmt::format("{}: '{}' is not a positive number", what, text),
                    "auto-l3:LO-HI[/N] with LO and HI multiples of the L3 size and N points per "
                    "doubling, e.g. auto-l3:0.125-8/4",
                    "fix --experts");
  }
  return v;
}

// "32M", "512MiB", "1G" or plain bytes.
uint64_t byte_size(const std::string& text) {
  size_t used = 0;
  const double v = leading_number(text, &used);
  const std::string unit = used > 0 ? text.substr(used) : "";
  const double scale = unit.empty()     ? 1.0
                       : unit[0] == 'K' ? 1024.0
                       : unit[0] == 'M' ? 1024.0 * 1024
                       : unit[0] == 'G' ? 1024.0 * 1024 * 1024
                                        : 0.0;
  if (used == 0 || !(v > 0) || scale == 0) {
    throw UserError(fmt::format("MOESWEEP_L3_BYTES='{}' is not a size", text),
                    "bytes, or a number with K, M or G (binary units), e.g. 32M",
                    "fix or unset MOESWEEP_L3_BYTES");
  }
  return static_cast<uint64_t>(v * scale);
}

}  // namespace

bool is_experts_auto_l3(const std::string& text) {
  return text.rfind(kAutoPrefix, 0) == 0;
}

ExpertsAutoL3 parse_experts_auto_l3(const std::string& text, const std::string& origin) {
  ExpertsAutoL3 r;
  const std::string what = fmt::format("{} (--experts {})", origin, text);
  std::string range = text.substr(std::min(text.size(), std::string(kAutoPrefix).size()));
  if (const size_t slash = range.find('/'); slash != std::string::npos) {
    const double n = positive_number(range.substr(slash + 1), what);
    if (n != std::floor(n) || n > 16)
      throw UserError(fmt::format("{}: {} points per doubling", what, n), "a whole number 1..16",
                      "fix --experts");
    r.per_doubling = static_cast<int>(n);
    range = range.substr(0, slash);
  }
  const size_t dash = range.find('-');
  if (text.rfind(kAutoPrefix, 0) != 0 || dash == std::string::npos) {
    throw UserError(fmt::format("{}: not of the form auto-l3:LO-HI", what),
                    "auto-l3:LO-HI[/N], e.g. auto-l3:0.25-16 (0.25x to 16x the L3 size)",
                    "fix --experts, or give expert counts: 8,16,32");
  }
  r.lo = positive_number(range.substr(0, dash), what);
  r.hi = positive_number(range.substr(dash + 1), what);
  if (r.hi < r.lo || r.hi / r.lo > 4096) {
    throw UserError(fmt::format("{}: {} to {} is no range auto-l3 can walk", what, r.lo, r.hi),
                    "LO <= HI and HI / LO <= 4096", "fix --experts");
  }
  return r;
}

PlanL3 l3_for_plan(int threads) {
  PlanL3 p;
  try {
    p.nominal = probe_topology().l3_total_bytes();
  } catch (const std::exception&) {
    p.nominal = 0;
  }
  if (const auto probe = load_cached_cache_probe())
    p.measured = threads > 1 && probe->effective_l3_bytes_all > 0 ? probe->effective_l3_bytes_all
                                                                  : probe->effective_l3_bytes;
  if (const char* env = std::getenv("MOESWEEP_L3_BYTES"); env && *env) {
    p.bytes = byte_size(env);
    p.source = "MOESWEEP_L3_BYTES";
  } else if (p.measured > 0) {
    p.bytes = p.measured;
    p.source = "measured (hw --cache)";
  } else {
    p.bytes = p.nominal;
    p.source = "hwloc";
  }
  if (p.bytes == 0) {
    throw UserError(
        "--experts auto-l3 needs this machine's L3 size: no `hw --cache` result, and hwloc "
        "reports no L3",
        "a measured usable L3 (`moesweep hw --cache`) or a machine that shows its caches",
        "run `moesweep hw --cache`, set MOESWEEP_L3_BYTES=32M, or give --experts as a list");
  }
  return p;
}

std::vector<int> experts_for_l3(const ExpertsAutoL3& range, uint64_t l3_bytes,
                                uint64_t expert_bytes, int experts_used) {
  std::vector<int> out;
  const double step = std::exp2(1.0 / std::max(1, range.per_doubling));
  for (double r = range.lo; r <= range.hi * (1 + 1e-9); r *= step) {
    const double want = r * static_cast<double>(l3_bytes) / static_cast<double>(expert_bytes);
    const int n = static_cast<int>(
        std::clamp<double>(std::llround(want), experts_used + 1, engine_limits::kMaxExperts));
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  }
  return out;
}

SpanCoverage span_coverage(const std::vector<int>& counts, uint64_t l3_bytes,
                           uint64_t expert_bytes) {
  SpanCoverage c;
  for (int n : counts) {
    const double ratio = static_cast<double>(n) * static_cast<double>(expert_bytes) /
                         static_cast<double>(std::max<uint64_t>(1, l3_bytes));
    if (ratio >= 0.125 * (1 - 1e-9) && ratio <= 8 * (1 + 1e-9)) ++c.in_span;
    if (ratio >= 0.125 * (1 - 1e-9) && ratio <= 1 + 1e-9) ++c.in_cache;
  }
  return c;
}

}  // namespace moesweep
