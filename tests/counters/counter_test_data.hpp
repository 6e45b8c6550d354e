#pragma once
// What several counter tests read: the recorded machines' sysfs trees
// (tests/data/sysfs) and the counter profiles moesweep ships (profiles/counters/).
#include <filesystem>
#include <string>

#include "counters/counter_profile.hpp"
#include "support/test_support.hpp"
#include "util/paths.hpp"

namespace moesweep::counters {

inline const std::filesystem::path kSysfs = std::filesystem::path(MOESWEEP_TEST_DATA) / "sysfs";

inline CounterProfile shipped(const std::string& name) {
  return load_counter_profile(profiles_dir() / "counters" / (name + ".json"));
}

}  // namespace moesweep::counters
