#include "hw_print.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "hw_cache.hpp"
#include "hw_noise.hpp"

#include "util/terminal_text.hpp"

namespace moesweep::cli {
namespace {

double gib(uint64_t bytes) {
  return static_cast<double>(bytes) / (1ull << 30);
}
double mib(uint64_t bytes) {
  return static_cast<double>(bytes) / (1ull << 20);
}

void print_topology(const Topology& t) {
  fmt::print("topology: {} socket(s), {} cores, {} logical CPUs, SMT {}, {} NUMA node(s)\n",
             t.sockets, t.cores, t.pus, t.smt_active ? "on" : "off", t.numa_nodes.size());
  fmt::print("memory:   {:.1f} GiB\n", gib(t.memory_bytes));
  for (const auto& n : t.numa_nodes)
    fmt::print("  NUMA node {}: {:.1f} GiB, CPUs {}\n", n.os_index, gib(n.memory_bytes),
               cpu_list_text(n.cpus));
  if (t.l3_domains.empty()) {
    fmt::print("L3:       not reported (virtual machines often hide the cache topology)\n");
  } else {
    fmt::print("L3:       {} domain(s), {:.0f} MiB in all\n", t.l3_domains.size(),
               mib(t.l3_total_bytes()));
    for (size_t i = 0; i < t.l3_domains.size(); ++i)
      fmt::print("  L3 {:>2}: {:.0f} MiB shared by CPUs {}\n", i, mib(t.l3_domains[i].size_bytes),
                 cpu_list_text(t.l3_domains[i].cpus));
  }
  print_wrapped(fmt::format("pin order (one CPU per core, spread over L3 domains): {}",
                            fmt::join(t.spread_cpus, ",")));
}

void print_profile(const HardwareProfile& p) {
  print_wrapped(fmt::format("hardware profile: {}{}", p.name,
                            p.description.empty() ? "" : " - " + p.description));
  if (p.theoretical_bandwidth_gbps() > 0)
    fmt::print("theoretical bandwidth: {:.1f} GB/s ({} channels x {}-{} x {} B)\n",
               p.theoretical_bandwidth_gbps(), p.memory_channels, p.memory_type, p.memory_mt_s,
               p.channel_bytes);
  else
    fmt::print("theoretical bandwidth: unknown (the profile names no memory channels)\n");
}

void print_measurement(const BandwidthMeasurement& m, const HardwareProfile& p, bool table) {
  const double theo = p.theoretical_bandwidth_gbps();
  if (table) {
    fmt::print("{:>8} {:>12} {:>16} {:>9} {:>10}\n", "threads", "GB/s median", "GB/s peak pass",
               "passes", "of theory");
    for (const auto& pt : m.points)
      fmt::print("{:>8} {:>12.1f} {:>16} {:>9} {:>10}\n", pt.threads, pt.gbps,
                 pt.overlapped_passes > 0 ? fmt::format("{:.1f}", pt.peak_gbps) : "none overlapped",
                 fmt::format("{}/{}", pt.overlapped_passes, pt.passes),
                 theo > 0 ? fmt::format("{:.0f}%", 100 * pt.gbps / theo) : "-");
    print_wrapped(fmt::format(
        "(median: the figure; peak: the best pass whose readers all overlapped; passes: "
        "overlapped/all)"));
  }
  print_wrapped(fmt::format(
      "measured bandwidth: {:.1f} GB/s at {} threads, median pass ({} MiB per thread, {})", m.gbps,
      m.threads, m.bytes_per_thread >> 20, m.measured_at));
}

}  // namespace

void print_machine(const MachineReport& m, const MeasuredNow& now) {
  const bool measured_now = now.bandwidth, probed_now = now.cache;
  print_wrapped(fmt::format(
      "cpu:      {} (family {} model {}){}", m.cpu.model_name, m.cpu.family, m.cpu.model,
      m.cpu.hypervisor ? ", virtual machine (hypervisor present)" : ", bare metal"));
  print_wrapped(fmt::format("engine:   {} {}, CPU backend {} ({})", m.engine.kind, m.engine.release,
                            m.engine.cpu_variant, fmt::join(m.engine.cpu_features, " ")));
  print_topology(m.topology);
  print_profile(m.profile);
  if (m.bandwidth) {
    print_measurement(*m.bandwidth, m.profile, measured_now);
    if (measured_now) fmt::print("cached in {}\n", bandwidth_cache_path().string());
  } else {
    print_wrapped(fmt::format(
        "measured bandwidth: not measured yet; run `moesweep hw --bandwidth` (a few seconds)"));
  }
  if (m.cache) {
    print_cache_probe(*m.cache, probed_now);
    if (probed_now) fmt::print("cached in {}\n", cache_probe_path().string());
  } else {
    print_wrapped(
        fmt::format("effective L3: not measured yet; run `moesweep hw --cache` (about a minute)"));
  }
  if (m.noise) {
    print_noise_profile(*m.noise, now.noise);
    if (now.noise) fmt::print("cached in {}\n", noise_profile_path().string());
  } else if (!m.noise_problem.empty()) {
    print_wrapped(fmt::format("noise profile: unusable: {}", m.noise_problem));
  } else {
    print_wrapped(
        fmt::format("noise profile: not measured yet; run `moesweep hw --noise` (a few minutes)"));
  }
}

}  // namespace moesweep::cli
