#pragma once
// "What you can do" when counters are unavailable: the sysctl, the capability,
// the likwid version, a machine with a PMU. A backend's describe()["advice"];
// a sweep's session says it once per run as a note to its listeners, and
// `moesweep counters` prints it in its report (this library never prints).
#include <optional>
#include <string>
#include <vector>

#include "counters/cpu_identity.hpp"

namespace moesweep::counters {

struct AdviceFacts {
  CpuIdentity cpu;
  std::string profile_name;            // empty: no profile for this CPU
  std::string hardware_probe_failure;  // empty: cycles could be counted
  bool uncore_pmus_missing = false;
  bool permission_denied = false;  // some event failed with EACCES/EPERM
  std::optional<int> paranoid;
  bool cap_perfmon = false;
};

std::vector<std::string> perf_advice(const AdviceFacts& facts);

// Advice when the installed likwid is older than the one that knows this CPU.
std::vector<std::string> likwid_advice(const std::string& installed_version,
                                       const std::string& needed_version, const CpuIdentity& cpu);

// -1, 0, 1 comparing dotted versions numerically ("5.2" < "5.5.0").
int compare_versions(const std::string& a, const std::string& b);

}  // namespace moesweep::counters
