#pragma once
// Keys of a phase's counters object (Record's pp/tg `counters`) that are not
// metrics: "sources" (metric -> hardware, software or simulated) and
// "simulated" (--counters sim: the simulated caches, callgrind's raw counts,
// the counts per repetition). Writers of one row per metric skip them.
#include <string_view>

namespace moesweep {

inline bool is_counter_metadata(std::string_view key) {
  return key == "sources" || key == "simulated";
}

}  // namespace moesweep
