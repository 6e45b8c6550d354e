// `moesweep hw`: what this machine is (topology, CPU, hardware profile) and,
// with --bandwidth, how fast it streams memory (measured, then cached so every
// sweep record can carry a decode roofline); with --cache, the cache it really
// gives a program (latency and bandwidth against working-set size, cached
// beside the bandwidth; `auto-l3` plans around it); with --noise, how much
// a sample's speed varies against its length (cached too: sweeps take their
// default --min-sample-time from it).
#include <fmt/format.h>

#include "commands.hpp"
#include "engine/engine_types.hpp"
#include "hw/machine_report.hpp"
#include "hw_noise.hpp"
#include "hw_print.hpp"

namespace moesweep::cli {

namespace {

struct HwOptions {
  bool bandwidth = false;
  bool cache = false;
  double cache_max_mib = 0;  // 0: the probe's default
  bool noise = false;
  NoiseFlags noise_flags;
  bool json = false;
  double seconds = 3.0;
  std::vector<int> threads;
  std::string profile;
};

int run_hw(const HwOptions& o) {
  MachineReport m = describe_machine(o.profile);
  if (o.bandwidth) {
    BandwidthProbeOptions po;
    po.seconds = o.seconds;
    po.thread_counts = o.threads;
    if (!o.json) fmt::print("measuring read bandwidth for {:.0f} s ...\n", o.seconds);
    m.bandwidth = measure_bandwidth(po);
    save_cached_bandwidth(*m.bandwidth);
  }
  if (o.cache) {
    CacheProbeOptions co;
    co.max_bytes = static_cast<uint64_t>(o.cache_max_mib * (1 << 20));
    if (!o.json) fmt::print("measuring latency and bandwidth against working-set size ...\n");
    m.cache = measure_cache(co);
    save_cached_cache_probe(*m.cache);
  }
  if (o.noise) {
    const NoiseMeasureOptions no = noise_options(o.noise_flags);
    if (!o.json)
      fmt::print("measuring the noise profile ({} samples a length, {:.0f} s of pauses) ...\n",
                 no.repetitions, noise_pause_seconds(no));
    try {
      m.noise = measure_noise_profile(
          no, [&](const std::string& line) { fmt::print(stderr, "[hw --noise] {}\n", line); });
    } catch (const EngineError& e) {  // a crash or an impossible time: no profile, nothing cached
      throw UserError(fmt::format("hw --noise: the engine failed on the twin: {}", e.what()),
                      "an engine that runs the twin on this machine",
                      "see the engine's log above; `moesweep sweep` on the twin shows it per "
                      "point",
                      exit_code::kPointsFailed);
    }
    m.noise_problem.clear();
    save_cached_noise_profile(*m.noise);
  }
  if (o.json)
    fmt::print("{}\n", to_json(m).dump(2));
  else
    print_machine(m, {o.bandwidth, o.cache, o.noise});
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
                  "largest working set of --cache (default 8x the L3, at least 256 MiB; at "
                  "most an eighth of the memory)")
      ->check(positive(1 << 24));  // 16 TiB: any machine's eighth, and exact in 64 bits
  cmd->add_flag("--noise", opts->noise,
                "measure the CV of S_TG and S_PP against sample length and pause on the default "
                "twin and cache it (sweeps' default --min-sample-time)");
  add_noise_options(*cmd, opts->noise_flags);
  cmd->add_option("--seconds", opts->seconds, "time for the bandwidth probe")
      ->check(positive(7 * 24 * 3600));
  cmd->add_option("--threads", opts->threads, "thread counts to probe (default 1..cores)")
      ->delimiter(',');
  cmd->add_option("--profile", opts->profile,
                  "hardware profile to show instead of the matched one");
  cmd->add_flag("--json", opts->json, "print JSON instead of text");
  cmd->callback([&run, opts] { run = [opts] { return run_hw(*opts); }; });
}

}  // namespace moesweep::cli
