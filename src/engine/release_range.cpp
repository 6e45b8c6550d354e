#include "engine/release_range.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <tuple>

#include "engine/engine_spec.hpp"
#include "util/error.hpp"
#include "util/json_fields.hpp"
#include "util/json_file.hpp"
#include "util/paths.hpp"

namespace moesweep {
namespace {

std::tuple<int, int, int> version_key(const std::string& v) {
  int a = 0, b = 0, c = 0;
  std::sscanf(v.c_str(), "%d.%d.%d", &a, &b, &c);
  return {a, b, c};
}

std::string version_list(const std::vector<PinnedVersion>& pins) {
  std::string out;
  for (const PinnedVersion& p : pins) out += (out.empty() ? "" : ", ") + p.version;
  return out.empty() ? "none" : out;
}

}  // namespace

std::vector<PinnedVersion> pinned_versions() {
  const auto file = profiles_dir() / "engines" / "node-llama-cpp.json";
  const nlohmann::json j = read_json_file(file, "the pinned llama.cpp releases", 4 << 20);
  const JsonFields top(j, file.string());
  const JsonFields versions = top.object("versions");
  std::vector<PinnedVersion> out;
  for (const auto& [version, pin] : versions.json().items()) {
    if (!is_release_version(version))
      throw UserError(fmt::format("{}: '{}' is not a package version", file.string(), version),
                      "versions such as 3.21.1", "correct the pins file");
    out.push_back({version, JsonFields(pin, file.string(), "versions." + version).text("release")});
  }
  std::sort(out.begin(), out.end(), [](const PinnedVersion& a, const PinnedVersion& b) {
    return version_key(a.version) < version_key(b.version);
  });
  return out;
}

std::vector<PinnedVersion> pinned_between(const std::string& first, const std::string& last) {
  const std::vector<PinnedVersion> pins = pinned_versions();
  const auto at = [&](const std::string& v) {
    const auto it = std::find_if(pins.begin(), pins.end(),
                                 [&](const PinnedVersion& p) { return p.version == v; });
    if (it == pins.end())
      throw UserError(fmt::format("release {} is not pinned", v.substr(0, 40)),
                      fmt::format("one of the pinned releases: {}", version_list(pins)),
                      "pick pinned releases (profiles/engines/node-llama-cpp.json)");
    return it;
  };
  const auto a = at(first), b = at(last);
  if (a > b)
    throw UserError(fmt::format("the release range {}..{} runs backwards", first, last),
                    "the older release first", fmt::format("write {}..{}", last, first));
  return {a, b + 1};
}

std::vector<PinnedVersion> parse_release_range(const std::string& range) {
  const size_t dots = range.find("..");
  if (dots == std::string::npos)
    throw UserError(fmt::format("'{}' is no release range", range.substr(0, 80)),
                    "FIRST..LAST, e.g. 3.21.1..3.22.1", "write the two versions with '..'");
  return pinned_between(range.substr(0, dots), range.substr(dots + 2));
}

std::string release_tag_of(const std::string& version) {
  for (const PinnedVersion& p : pinned_versions())
    if (p.version == version) return p.release;
  return "";
}

}  // namespace moesweep
