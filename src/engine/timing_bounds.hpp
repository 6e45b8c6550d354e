#pragma once
// Every time an engine reports (the worker's decode seconds, an external
// tool's t_pp or samples_ns) is checked before a speed is made of it: it
// cannot be longer than the wall clock moesweep itself measured around the
// call, nor shorter than a physical floor. A time outside both is the
// engine's failure, with the reason: an impossible speed never reaches a
// table, and an infinite one never reaches records.jsonl.
#include <cstdint>
#include <string>

#include "util/decode_floor.hpp"  // the floor: kMinSecondsPerStep, decode_floor_s

namespace moesweep {

// "" when `seconds` is a time a decode of `tokens` can have taken inside a
// call (or run) of `wall_s` seconds by moesweep's clock (wall_s <= 0: none
// known); else why not, naming `what` ("the engine worker's decode").
std::string implausible_time(const std::string& what, double seconds, int64_t tokens,
                             int64_t tokens_per_step, double wall_s);

}  // namespace moesweep
