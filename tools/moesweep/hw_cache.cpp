#include "hw_cache.hpp"

#include <fmt/format.h>

#include <string>

#include "util/terminal_text.hpp"

namespace moesweep::cli {
namespace {

std::string size_text(uint64_t bytes) {
  if (bytes == 0) return "none found";
  if (bytes < (1u << 20)) return fmt::format("{:.0f} KiB", bytes / 1024.0);
  return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1 << 20));
}

void print_knees(const char* what, const std::vector<CacheKnee>& knees, const char* unit) {
  std::string line = fmt::format("  {:<22}", what);
  if (knees.empty()) line += " none";
  for (const CacheKnee& k : knees)
    line += fmt::format(" {} ({:.3g} -> {:.3g} {})", size_text(k.bytes), k.before, k.after, unit);
  fmt::print("{}\n", wrap_words(line, kTerminalWidth, std::string(25, ' ')));
}

void print_gemv(const CacheProbeResult& r) {
  if (r.gemv.empty()) return;
  const ExpertGemvShape& g = r.gemv_shape;
  print_wrapped(fmt::format(
      "expert GEMV (ggml mul_mat_id, {} experts of {}x{}, {} used x {} layers per token):", g.type,
      g.hidden, g.rows, g.used, g.layers));
  fmt::print("{:>12} {:>10} {:>10}\n", "pool", "GB/s 1", fmt::format("GB/s {}", r.threads));
  for (const GemvProbePoint& p : r.gemv)
    fmt::print("{:>12} {:>10.1f} {:>10}\n", size_text(p.pool_bytes), p.gbps,
               p.gbps_all > 0 ? fmt::format("{:.1f}", p.gbps_all) : "-");
}

}  // namespace

void print_cache_probe(const CacheProbeResult& r, bool table) {
  if (table) {
    fmt::print("{:>12} {:>10} {:>10} {:>10} {:>10}\n", "working set", "ns 1 thr",
               fmt::format("ns {} thr", r.threads), "GB/s 1", fmt::format("GB/s {}", r.threads));
    for (const CacheProbePoint& p : r.points)
      fmt::print("{:>12} {:>10.1f} {:>10} {:>10.1f} {:>10}\n", size_text(p.bytes), p.latency_ns,
                 p.latency_ns_all > 0 ? fmt::format("{:.1f}", p.latency_ns_all) : "-", p.gbps,
                 p.gbps_all > 0 ? fmt::format("{:.1f}", p.gbps_all) : "-");
    fmt::print("knees (working set where a curve steps to the next level):\n");
    print_knees("latency, 1 thread", r.knees.latency, "ns");
    if (r.threads > 1) print_knees("latency, all threads", r.knees.latency_all, "ns");
    print_knees("bandwidth, 1 thread", r.knees.bandwidth, "GB/s");
    if (r.threads > 1) print_knees("bandwidth, all threads", r.knees.bandwidth_all, "GB/s");
    fmt::print("huge pages: {:.0f}% of the largest buffer\n", 100 * r.huge_page_share);
    print_gemv(r);
  }
  print_wrapped(
      fmt::format("L3: nominal {} (hwloc), effective {} for 1 thread, {} for {} threads "
                  "(measured {}; the biggest latency step above the {} L2)",
                  size_text(r.nominal_l3_bytes), size_text(r.effective_l3_bytes),
                  size_text(r.effective_l3_bytes_all), r.threads, r.measured_at,
                  size_text(r.private_cache_bytes)));
}

}  // namespace moesweep::cli
