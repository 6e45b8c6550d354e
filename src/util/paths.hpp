#pragma once
#include <filesystem>
#include <string>
#include <string_view>

namespace moesweep {

// $MOESWEEP_CACHE_DIR, else $XDG_CACHE_HOME/moesweep, else ~/.cache/moesweep.
std::filesystem::path cache_dir();
// The shipped data (profiles/): $MOESWEEP_DATA_DIR, else the source tree this
// binary was built from, else ./profiles.
std::filesystem::path profiles_dir();

// The moesweep source tree this binary was built from (its CMakeLists.txt
// and scripts/), or "" when it is not there any more: `engine add` builds
// workers from it.
std::filesystem::path source_tree_dir();

// Names taken from files (a run id, a machine-class id, a plan id) become
// folder names: each must be one path component that stays in its folder.
// UserError (naming `what` and `origin`) for "", ".", "..", a '/', a control
// character or more than 200 bytes.
void check_path_component(const std::string& name, std::string_view what, std::string_view origin);
bool is_path_component(std::string_view name);

}  // namespace moesweep
