#include "util/paths.hpp"

#include <cstdlib>

namespace moesweep {

std::filesystem::path cache_dir() {
  if (const char* d = std::getenv("MOESWEEP_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return std::filesystem::path(x) / "moesweep";
  if (const char* h = std::getenv("HOME"); h && *h)
    return std::filesystem::path(h) / ".cache" / "moesweep";
  return std::filesystem::temp_directory_path() / "moesweep-cache";
}

std::filesystem::path profiles_dir() {
  if (const char* d = std::getenv("MOESWEEP_DATA_DIR"); d && *d) return std::filesystem::path(d);
#ifdef MOESWEEP_SOURCE_DIR
  if (std::filesystem::exists(std::filesystem::path(MOESWEEP_SOURCE_DIR) / "profiles"))
    return std::filesystem::path(MOESWEEP_SOURCE_DIR) / "profiles";
#endif
  return "profiles";
}

}  // namespace moesweep
