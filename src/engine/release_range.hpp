#pragma once
// The llama.cpp releases moesweep can register by package version
// (profiles/engines/node-llama-cpp.json's pins), in version order, and a
// range of them: `moesweep history --releases A..B`, `bisect --good A --bad B`.
#include <string>
#include <vector>

namespace moesweep {

struct PinnedVersion {
  std::string version;  // the npm package version: 3.21.1
  std::string release;  // its llama.cpp tag: v0.4.0
};

// Every pinned version, oldest first (by version number). UserError (exit 2)
// for a pins file that cannot be read.
std::vector<PinnedVersion> pinned_versions();

// The pinned versions from `first` to `last`, both included and both pinned
// (UserError naming the pinned ones otherwise). "A..B" is parsed by
// parse_release_range.
std::vector<PinnedVersion> pinned_between(const std::string& first, const std::string& last);
std::vector<PinnedVersion> parse_release_range(const std::string& range);

// The llama.cpp tag of a pinned version ("" when it is not pinned).
std::string release_tag_of(const std::string& version);

}  // namespace moesweep
