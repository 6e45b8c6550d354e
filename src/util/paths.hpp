#pragma once
#include <filesystem>

namespace moesweep {

// $MOESWEEP_CACHE_DIR, else $XDG_CACHE_HOME/moesweep, else ~/.cache/moesweep.
std::filesystem::path cache_dir();
// The shipped data (profiles/): $MOESWEEP_DATA_DIR, else the source tree this
// binary was built from, else ./profiles.
std::filesystem::path profiles_dir();

}  // namespace moesweep
