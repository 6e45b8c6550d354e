// `moesweep hw`: what this machine is (topology, CPU, hardware profile) and,
// with --bandwidth, how fast it streams memory (measured, then cached so every
// sweep record can carry a decode roofline); with --cache, the cache it really
// gives a program (latency and bandwidth against working-set size, cached
// beside the bandwidth; `auto-l3` plans around it).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "commands.hpp"
#include "engine/engine.hpp"
#include "hw/bandwidth_probe.hpp"
#include "hw/build_info.hpp"
#include "hw/cache_probe.hpp"
#include "hw/hardware_profile.hpp"
#include "hw/topology.hpp"
#include "hw_cache.hpp"

namespace moesweep::cli {

namespace {

struct HwOptions {
  bool bandwidth = false;
  bool cache = false;
  double cache_max_mib = 0;  // 0: the probe's default
  bool json = false;
  double seconds = 3.0;
  std::vector<int> threads;
  std::string profile;
};

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
  fmt::print("pin order (one CPU per core, spread over L3 domains): {}\n",
             fmt::join(t.spread_cpus, ","));
}

void print_profile(const HardwareProfile& p) {
  fmt::print("hardware profile: {}{}\n", p.name,
             p.description.empty() ? "" : " - " + p.description);
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
    fmt::print("{:>8} {:>10} {:>12} {:>12}\n", "threads", "GB/s best", "GB/s median", "of theory");
    for (const auto& pt : m.points)
      fmt::print("{:>8} {:>10.1f} {:>12.1f} {:>12}\n", pt.threads, pt.gbps, pt.median_gbps,
                 theo > 0 ? fmt::format("{:.0f}%", 100 * pt.gbps / theo) : "-");
  }
  fmt::print("measured bandwidth: {:.1f} GB/s at {} threads ({} MiB per thread, {})\n", m.best_gbps,
             m.best_threads, m.bytes_per_thread >> 20, m.measured_at);
}

int run_hw(const HwOptions& o) {
  const CpuInfo cpu = cpu_info();
  const EngineFacts& engine = engine_facts();
  const Topology topo = probe_topology();
  const HardwareProfile profile =
      o.profile.empty() ? match_hardware_profile(cpu.model_name) : load_hardware_profile(o.profile);
  std::optional<BandwidthMeasurement> measured = load_cached_bandwidth();
  if (o.bandwidth) {
    BandwidthProbeOptions po;
    po.seconds = o.seconds;
    po.thread_counts = o.threads;
    if (!o.json) fmt::print("measuring read bandwidth for {:.0f} s ...\n", o.seconds);
    measured = measure_bandwidth(po);
    save_cached_bandwidth(*measured);
  }
  std::optional<CacheProbeResult> cache = load_cached_cache_probe();
  if (o.cache) {
    CacheProbeOptions co;
    co.max_bytes = static_cast<uint64_t>(o.cache_max_mib * (1 << 20));
    if (!o.json) fmt::print("measuring latency and bandwidth against working-set size ...\n");
    cache = measure_cache(co);
    save_cached_cache_probe(*cache);
  }
  if (o.json) {
    nlohmann::json j = {{"cpu",
                         {{"model_name", cpu.model_name},
                          {"vendor", cpu.vendor},
                          {"family", cpu.family},
                          {"model", cpu.model},
                          {"hypervisor", cpu.hypervisor}}},
                        {"cpu_features", engine.cpu_features},
                        {"engine", engine_json(engine)},
                        {"topology", to_json(topo)},
                        {"hardware_profile", to_json(profile)}};
    if (measured) j["bandwidth"] = to_json(*measured);
    if (cache) j["cache"] = to_json(*cache);
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  fmt::print("cpu:      {} (family {} model {}){}\n", cpu.model_name, cpu.family, cpu.model,
             cpu.hypervisor ? ", virtual machine (hypervisor present)" : ", bare metal");
  fmt::print("engine:   {} {}, CPU backend {} ({})\n", engine.kind, engine.release,
             engine.cpu_variant, fmt::join(engine.cpu_features, " "));
  print_topology(topo);
  print_profile(profile);
  if (measured) {
    print_measurement(*measured, profile, o.bandwidth);
    if (o.bandwidth) fmt::print("cached in {}\n", bandwidth_cache_path().string());
  } else {
    fmt::print(
        "measured bandwidth: not measured yet; run `moesweep hw --bandwidth` (a few seconds)\n");
  }
  if (cache) {
    print_cache_probe(*cache, o.cache);
    if (o.cache) fmt::print("cached in {}\n", cache_probe_path().string());
  } else {
    fmt::print("effective L3: not measured yet; run `moesweep hw --cache` (about a minute)\n");
  }
  return 0;
}

}  // namespace

void add_hw_command(CLI::App& app, CommandRunner& run) {
  auto opts = std::make_shared<HwOptions>();
  CLI::App* cmd = app.add_subcommand(
      "hw", "show this machine's topology, hardware profile and memory bandwidth");
  cmd->add_flag("--bandwidth", opts->bandwidth,
                "measure read bandwidth by thread count and cache it");
  cmd->add_flag("--cache", opts->cache,
                "measure latency and bandwidth against working-set size (the usable L3) and "
                "cache it");
  cmd->add_option("--cache-max-mib", opts->cache_max_mib,
                  "largest working set of --cache (default 8x the L3, at least 256 MiB)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--seconds", opts->seconds, "time for the bandwidth probe")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--threads", opts->threads, "thread counts to probe (default 1..cores)")
      ->delimiter(',');
  cmd->add_option("--profile", opts->profile,
                  "hardware profile to show instead of the matched one");
  cmd->add_flag("--json", opts->json, "print JSON instead of text");
  cmd->callback([&run, opts] { run = [opts] { return run_hw(*opts); }; });
}

}  // namespace moesweep::cli
