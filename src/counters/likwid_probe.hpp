#pragma once
// Trying likwid's perfmon_init can end the whole process: Debian's liblikwid
// 5.2.2 on a CPU it does not know falls back to its access daemon and calls
// exit() after a 10 s socket timeout (seen on the development VMs, Zen 5).
// So a version check comes first, and when that cannot decide, the init is
// tried in a forked child whose death we can observe.
#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace moesweep::counters {

struct LikwidProbeResult {
  bool initialised = false;  // perfmon_init returned >= 0
  int init_rc = 0;
  std::vector<std::pair<std::string, int>> groups;  // group -> perfmon_addEventSet result
  std::string messages;                             // what liblikwid printed on stderr
  std::string failure;                              // set when it did not work, and why
};

// Runs topology_init, perfmon_init on every hardware thread and
// perfmon_addEventSet(groups) in a child process, killed after `timeout`.
LikwidProbeResult probe_likwid_in_child(const std::vector<std::string>& groups,
                                        std::chrono::seconds timeout);

}  // namespace moesweep::counters
