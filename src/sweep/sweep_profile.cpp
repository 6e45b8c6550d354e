// A sweep profile (profiles/sweeps/*.json) read into settings (sweep_spec.hpp).
#include <fmt/format.h>

#include <filesystem>

#include "sweep/sweep_spec.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"
#include "util/paths.hpp"

namespace moesweep {

std::map<std::string, nlohmann::json> load_sweep_profile(const std::string& name_or_path,
                                                         std::string* origin) {
  std::filesystem::path path = name_or_path;
  if (!std::filesystem::exists(path)) path = profiles_dir() / "sweeps" / (name_or_path + ".json");
  if (!std::filesystem::exists(path)) {
    throw UserError(fmt::format("unknown sweep profile '{}'", name_or_path),
                    "a name from profiles/sweeps (see `moesweep list`) or a JSON file path",
                    "check the spelling or the path");
  }
  const nlohmann::json j = read_json_file(path, "sweep profile");
  if (!j.is_object()) {
    throw UserError(fmt::format("sweep profile '{}' is not a JSON object", path.string()),
                    "{\"threads\": \"16,14,13,12\", ...}", "see profiles/sweeps/default.json");
  }
  if (origin) *origin = path.string();
  std::map<std::string, nlohmann::json> out;
  for (auto& [k, v] : j.items()) out[k] = v;
  return out;
}

}  // namespace moesweep
