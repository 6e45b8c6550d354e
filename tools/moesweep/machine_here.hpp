#pragma once
// The machine class of the machine we run on, as the sweep records it in
// meta.json and `moesweep baseline find` looks it up.
#include "results/machine_class.hpp"

namespace moesweep::cli {

MachineClass this_machine_class();

}  // namespace moesweep::cli
