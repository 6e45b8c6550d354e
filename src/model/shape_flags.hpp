#pragma once
// The twin's shape flags, one row each, for every command that builds a twin:
// synth, trace and serve-bench add them as options (tools/moesweep/
// twin_options.cpp: one value each), and the sweep's settings table takes its
// twin rows from here (sweep/sweep_settings.cpp: a list each, one twin per
// value), so a flag's name, meaning and help are written once.
#include <cstdint>
#include <vector>

#include "model/model_profile.hpp"

namespace moesweep {

struct ShapeFlag {
  const char* key;                  // the sweep's profile key = the long flag's name
  const char* flag;                 // "--layers"
  int64_t ShapeOverrides::*member;  // what a given value overrides
  const char* help;                 // one value: what it sets
  const char* axis_help;            // the sweep's help when it says more (lists, auto-l3)
  const char* sweep_help() const { return axis_help ? axis_help : help; }
};

// In the order `--help` lists them.
const std::vector<ShapeFlag>& twin_shape_flags();

}  // namespace moesweep
