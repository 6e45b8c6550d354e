// `moesweep counters`: which hardware-counter PMUs this machine exposes, which
// per-phase metrics each backend can measure here, why not the others, and
// what the user can change (sysctl, capability, likwid version, bare metal).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "commands.hpp"
#include "counters/advice.hpp"
#include "counters/backends.hpp"
#include "counters/likwid_backend.hpp"
#include "counters/perf_backend.hpp"
#include "counters_print.hpp"
#include "util/terminal_text.hpp"

namespace moesweep::cli {

namespace {

struct CountersOptions {
  bool json = false;
  std::string sysfs_root = "/sys";
  std::string cpuinfo = "/proc/cpuinfo";
};

int run_counters(const CountersOptions& o) {
  counters::CounterOptions options;
  options.sysfs_root = o.sysfs_root;
  options.cpuinfo = o.cpuinfo;

  const counters::PerfBackend perf(options);
  const counters::LikwidBackend likwid(options);
  const auto chosen = counters::make_counter_backend("auto", options);
  const nlohmann::json perf_d = perf.describe();
  const nlohmann::json likwid_d = likwid.describe();
  std::vector<std::string> advice = perf_d["advice"];
  for (const auto& line : likwid_d["advice"]) advice.push_back(line.get<std::string>());

  if (o.json) {
    nlohmann::json j = {{"perf", perf_d},
                        {"likwid", likwid_d},
                        {"auto", chosen->describe()},
                        {"likwid_marker_mode", counters::likwid_marker_mode()},
                        {"advice", advice}};
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  const auto& cpu = perf.cpu();
  fmt::print("cpu:      {} ({} family {} model {}){}\n", cpu.model_name, cpu.vendor, cpu.family,
             cpu.model, cpu.hypervisor ? ", virtual machine" : "");
  fmt::print("profile:  {}\n", perf.profile() ? perf.profile()->file.string()
                                              : "none matches this CPU (profiles/counters/)");
  fmt::print("kernel:   perf_event_paranoid={}, CAP_PERFMON/CAP_SYS_ADMIN: {}\n",
             perf_d["perf_event_paranoid"].dump(),
             perf_d["cap_perfmon"].get<bool>() ? "yes" : "no");
  fmt::print("PMUs in {}/bus/event_source/devices: {}\n", o.sysfs_root,
             fmt::join(perf_d["pmus"].get<std::vector<std::string>>(), " "));
  print_wrapped(
      fmt::format("hardware PMU (cycles on this thread): {}", status_text(perf_d["hardware_pmu"])));
  fmt::print("\n");

  fmt::print("--counters perf (perf_event_open), per phase:\n");
  print_metrics(perf_d["metrics"]);
  fmt::print("\n");
  print_wrapped(fmt::format("--counters likwid (liblikwid {}): perfmon {}",
                            likwid_d["likwid_version"].is_string()
                                ? likwid_d["likwid_version"].get<std::string>()
                                : "not linked",
                            status_text(likwid_d["perfmon"])));
  fmt::print("\n");
  print_wrapped(fmt::format("--counters auto chooses {}: {}", chosen->name(),
                            chosen->describe()["why"].get<std::string>()));
  if (counters::likwid_marker_mode())
    fmt::print("likwid-perfctr -m detected: each phase of each point is a marker region\n");
  if (perf.profile() && !perf.profile()->notes.empty()) {
    fmt::print("\nnotes ({}):\n", perf.profile()->name);
    for (const auto& note : perf.profile()->notes) print_wrapped("  - " + note);
  }
  if (!advice.empty()) {
    fmt::print("\nwhat you can do:\n");
    for (const auto& line : advice) print_wrapped("  - " + line);
  }
  return 0;
}

}  // namespace

void add_counters_command(CLI::App& app, CommandRunner& run) {
  auto opts = std::make_shared<CountersOptions>();
  CLI::App* cmd = app.add_subcommand(
      "counters", "list hardware-counter PMUs and which per-phase metrics are measurable here");
  cmd->add_flag("--json", opts->json, "print JSON instead of text");
  cmd->add_option("--sysfs-root", opts->sysfs_root, "read PMUs from this copy of /sys")
      ->group("");  // for tests and for reading a recorded machine
  cmd->add_option("--cpuinfo", opts->cpuinfo, "read the CPU from this copy of /proc/cpuinfo")
      ->group("");
  cmd->callback([&run, opts] { run = [opts] { return run_counters(*opts); }; });
}

}  // namespace moesweep::cli
