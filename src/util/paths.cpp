#include "util/paths.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "util/error.hpp"

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

std::filesystem::path source_tree_dir() {
#ifdef MOESWEEP_SOURCE_DIR
  const std::filesystem::path dir(MOESWEEP_SOURCE_DIR);
  std::error_code ec;
  if (std::filesystem::is_regular_file(dir / "CMakeLists.txt", ec) &&
      std::filesystem::is_regular_file(dir / "scripts" / "engine-fetch", ec))
    return dir;
#endif
  return {};
}

namespace {
// The name as a message can show it: quoted, control characters as \xNN.
std::string shown(std::string_view name) {
  std::string out = "'";
  for (const char c : name.substr(0, 80)) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    else
      out += c;
  }
  return out + (name.size() > 80 ? "...'" : "'");
}
}  // namespace

bool is_path_component(std::string_view name) {
  if (name.empty() || name == "." || name == ".." || name.size() > 200) return false;
  for (const char c : name)
    if (c == '/' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  return true;
}

void check_path_component(const std::string& name, std::string_view what, std::string_view origin) {
  if (is_path_component(name)) return;
  throw UserError(
      fmt::format("{}: the {} {} cannot name a folder", origin, what, shown(name)),
      "one path component: not empty, not . or .., no '/', no control characters, at most 200 "
      "bytes",
      fmt::format("correct the {} in {} (it becomes a directory name)", what, origin));
}

}  // namespace moesweep
