#pragma once
// Which shared objects the worker process has loaded (dl_iterate_phdr): the
// engine's libllama and CPU backend files a record names.
#include <string>

namespace moesweep::worker {

// The path of the first loaded shared object whose file name starts with
// `prefix` ("libllama."), "" when none is (a statically linked engine).
std::string loaded_library(const char* prefix);

}  // namespace moesweep::worker
