#pragma once
// The llama.cpp releases moesweep can fetch: profiles/engines/node-llama-cpp.json,
// one entry per npm version of node-llama-cpp (3.1.1 = llama.cpp b3889 ...
// 3.22.1 = v0.5.0) with its llama.cpp tag, where the tag was read, and the
// sha256 of both packages (the source bundle, the prebuilt Linux x64
// libraries). scripts/engine-pins regenerates the file from the registry;
// scripts/engine-fetch refuses a package whose sha256 differs from its pin.
#include <filesystem>
#include <string>
#include <vector>

namespace moesweep {

struct PinnedPackage {
  std::string package;  // "node-llama-cpp@3.21.1"
  std::string sha256;   // of the package's .tgz as `npm pack` writes it
};

struct PinnedRelease {
  std::string version;       // the npm version: 3.21.1
  std::string release;       // the llama.cpp tag it carries: v0.4.0, b6673
  std::string release_from;  // where that tag was read
  std::string source_date;   // YYYY-MM-DD: the source bundle's commit (the day the tag was taken)
  std::string unsupported;   // "" or why the worker cannot use this release
  std::string known_issue;   // "" or a defect of the release measured here, and its workaround
  PinnedPackage source, prebuilt;
};

// The pins file (MOESWEEP_RELEASE_PINS, else profiles/engines/node-llama-cpp.json).
std::filesystem::path release_pins_file();

// Every pinned release, oldest first. UserError (exit 2, the file and field)
// for a pins file that is missing, too large or malformed.
std::vector<PinnedRelease> pinned_releases();

// -1, 0, 1 as `a` is older than, the same as or newer than `b` (numeric
// dotted versions: 3.9.0 < 3.10.0).
int compare_versions(const std::string& a, const std::string& b);

// The pinned release of npm version `version`, before anything is fetched.
// UserError for a version that is not pinned or that the worker cannot
// support: the reason, and the nearest version that works.
PinnedRelease supported_release(const std::string& version);

// The pinned releases from `first` to `last` (both pinned; "A..B" ranges),
// oldest first; `supported_only` leaves out those the worker cannot use.
std::vector<PinnedRelease> releases_between(const std::string& first, const std::string& last,
                                            bool supported_only = true);
// "FIRST..LAST" (moesweep history --releases): releases_between of the two,
// every pinned release, the unsupported ones included (the caller says why
// it leaves them out). UserError for text that is no range.
std::vector<PinnedRelease> releases_in_range(const std::string& range);

}  // namespace moesweep
