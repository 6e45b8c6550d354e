#include "engine/release_pins.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <regex>

#include "util/error.hpp"
#include "util/json_fields.hpp"
#include "util/json_file.hpp"
#include "util/paths.hpp"

namespace moesweep {
namespace {

constexpr uint64_t kMaxPinsBytes = 1 << 20;
constexpr size_t kMaxVersionParts = 4;

// 3.10.0 -> {3, 10, 0}; empty for text that is not a dotted version.
std::vector<long> version_parts(const std::string& v) {
  static const std::regex dotted(R"(\d{1,6}(\.\d{1,6}){0,3})");
  if (!std::regex_match(v, dotted)) return {};
  std::vector<long> parts;
  size_t start = 0;
  while (start <= v.size() && parts.size() < kMaxVersionParts) {
    const size_t dot = v.find('.', start);
    parts.push_back(std::strtol(v.substr(start, dot - start).c_str(), nullptr, 10));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

PinnedPackage read_package(const JsonFields& f) {
  static const std::regex sha256(R"([0-9a-f]{64})");
  PinnedPackage p{f.text("package"), f.text("sha256")};
  if (p.package.empty() || p.package.size() > 128) f.fail("package", "an npm package@version");
  if (!std::regex_match(p.sha256, sha256)) f.fail("sha256", "64 lowercase hex digits");
  return p;
}

PinnedRelease read_release(const JsonFields& versions, const std::string& version) {
  if (version_parts(version).empty()) versions.fail(version, "a key that is a dotted version");
  const JsonFields f = versions.object(version);
  PinnedRelease r;
  r.version = version;
  r.release = f.text("release");
  static const std::regex tag(R"((b\d{1,6})|(v\d{1,4}\.\d{1,4}\.\d{1,4}))");
  if (!std::regex_match(r.release, tag))
    f.fail("release", "a llama.cpp tag such as b3889 or v0.4.0");
  r.release_from = f.text("release_from");
  r.source_date = f.text("source_date");
  r.unsupported = f.text("unsupported");
  r.known_issue = f.text("known_issue");
  r.source = read_package(f.object("source"));
  r.prebuilt = read_package(f.object("prebuilt"));
  return r;
}

// The pinned version nearest to `version` that the worker supports.
std::string nearest_supported(const std::string& version, const std::vector<PinnedRelease>& all) {
  const std::vector<long> want = version_parts(version);
  std::string best;
  double best_distance = 1e18;
  for (const PinnedRelease& r : all) {
    if (!r.unsupported.empty()) continue;
    const std::vector<long> have = version_parts(r.version);
    double distance = 0;  // weighted by position: 3.9 is nearer 3.10 than 4.0
    for (size_t i = 0; i < std::max(want.size(), have.size()); ++i)
      distance = distance * 1000 +
                 std::abs((i < want.size() ? want[i] : 0) - (i < have.size() ? have[i] : 0));
    if (distance < best_distance) best_distance = distance, best = r.version;
  }
  return best;
}

}  // namespace

std::filesystem::path release_pins_file() {
  const char* env = std::getenv("MOESWEEP_RELEASE_PINS");
  if (env && *env) return env;
  return profiles_dir() / "engines" / "node-llama-cpp.json";
}

std::vector<PinnedRelease> pinned_releases() {
  const std::filesystem::path file = release_pins_file();
  const nlohmann::json j = read_json_file(file, "the release pins file", kMaxPinsBytes);
  const JsonFields top(j, file.string());
  const JsonFields versions = top.object("versions");
  std::vector<PinnedRelease> out;
  for (const auto& [version, entry] : versions.json().items()) {
    (void)entry;
    out.push_back(read_release(versions, version));
  }
  std::sort(out.begin(), out.end(), [](const PinnedRelease& a, const PinnedRelease& b) {
    return compare_versions(a.version, b.version) < 0;
  });
  return out;
}

int compare_versions(const std::string& a, const std::string& b) {
  const std::vector<long> x = version_parts(a), y = version_parts(b);
  for (size_t i = 0; i < std::max(x.size(), y.size()); ++i) {
    const long l = i < x.size() ? x[i] : 0, r = i < y.size() ? y[i] : 0;
    if (l != r) return l < r ? -1 : 1;
  }
  return 0;
}

PinnedRelease supported_release(const std::string& version) {
  const std::vector<PinnedRelease> all = pinned_releases();
  const auto it = std::find_if(all.begin(), all.end(),
                               [&](const PinnedRelease& r) { return r.version == version; });
  const std::string nearest = nearest_supported(version, all);
  const std::string use =
      nearest.empty() ? std::string("another version") : fmt::format("--release {}", nearest);
  if (it == all.end()) {
    std::vector<std::string> known;
    for (const PinnedRelease& r : all) known.push_back(r.version);
    throw UserError(
        fmt::format("no pinned llama.cpp release for npm version '{}'", version.substr(0, 40)),
        fmt::format("a version of {} ({})", release_pins_file().string(), fmt::join(known, ", ")),
        fmt::format("use the nearest, {} (moesweep engine releases lists them; scripts/engine-pins "
                    "regenerates the pins from the registry)",
                    use));
  }
  if (!it->unsupported.empty())
    throw UserError(fmt::format("llama.cpp {} (npm {}) is not supported by this worker: {}",
                                it->release, it->version, it->unsupported),
                    "a release the worker supports", fmt::format("use the nearest, {}", use));
  return *it;
}

std::vector<PinnedRelease> releases_between(const std::string& first, const std::string& last,
                                            bool supported_only) {
  const std::vector<PinnedRelease> all = pinned_releases();
  for (const std::string& end : {first, last})
    if (std::none_of(all.begin(), all.end(),
                     [&](const PinnedRelease& r) { return r.version == end; }))
      (void)supported_release(end);  // throws, naming the nearest
  if (compare_versions(first, last) > 0)
    throw UserError(fmt::format("release range {}..{} runs backwards", first, last),
                    "the older release first", fmt::format("write {}..{}", last, first));
  std::vector<PinnedRelease> out;
  for (const PinnedRelease& r : all)
    if (compare_versions(r.version, first) >= 0 && compare_versions(r.version, last) <= 0 &&
        (!supported_only || r.unsupported.empty()))
      out.push_back(r);
  return out;
}

std::vector<PinnedRelease> releases_in_range(const std::string& range) {
  const size_t dots = range.find("..");
  if (dots == std::string::npos)
    throw UserError(fmt::format("'{}' is no release range", range.substr(0, 80)),
                    "FIRST..LAST, e.g. 3.21.1..3.22.1", "write the two versions with '..'");
  return releases_between(range.substr(0, dots), range.substr(dots + 2), false);
}

}  // namespace moesweep
