#include "engine/engine_spec.hpp"

#include <fmt/format.h>

#include <regex>

#include "engine/engine.hpp"
#include "engine/engine_registry.hpp"
#include "util/error.hpp"
#include "util/run_command.hpp"
#include "util/stop_signal.hpp"

namespace moesweep {
namespace fs = std::filesystem;

namespace {

// HEAD's first 10 hex digits, or "nogit" for a folder outside a git repository.
std::string checkout_commit(const fs::path& dir) {
  const CommandOutput r =
      run_command({"git", "-C", dir.string(), "rev-parse", "--short=10", "HEAD"});
  const std::string commit = first_line(r.out);
  const bool hex = !commit.empty() && commit.size() <= 40 &&
                   commit.find_first_not_of("0123456789abcdef") == std::string::npos;
  return r.exit_code == 0 && hex ? commit : "nogit";
}

}  // namespace

std::string release_engine_name(const std::string& version) {
  return "release-" + version;
}

bool is_release_version(const std::string& text) {
  static const std::regex version(R"([0-9]{1,4}\.[0-9]{1,4}\.[0-9]{1,4})");
  return std::regex_match(text, version);
}

std::string engine_name_part(const std::string& text, size_t max) {
  std::string part = text.substr(0, std::min(max, kEngineNameMax));
  for (char& c : part)
    if (!is_engine_name_char(c)) c = '-';
  return part;
}

EngineSpec resolve_engine_spec(const std::string& spec, const std::string& flag) {
  EngineSpec s;
  s.typed = spec;
  std::error_code ec;
  if (is_release_version(spec)) {
    s.name = release_engine_name(spec);
    s.build = EngineSource{};
    s.build->release = spec;
    s.add_arguments = "--release " + spec;
    return s;
  }
  if (!spec.empty() && fs::is_directory(spec, ec)) {
    const fs::path dir = fs::absolute(spec).lexically_normal();
    const fs::path named = dir.has_filename() ? dir : dir.parent_path();
    s.name = "checkout-" + engine_name_part(named.filename().string()) + "-" + checkout_commit(dir);
    s.build = EngineSource{};
    s.build->llama_cpp = dir;
    s.add_arguments = "--llama-cpp " + dir.string();
    return s;
  }
  const bool plain_name = spec.find('/') == std::string::npos && !spec.empty() &&
                          spec.size() <= kEngineNameMax && spec[0] != '.' &&
                          engine_name_part(spec, kEngineNameMax) == spec;
  if (!plain_name)
    throw UserError(fmt::format("{} '{}' is no folder, release version (3.21.1) or registered "
                                "engine name",
                                flag, spec.substr(0, 200)),
                    "a registered engine (moesweep engine list), a package version such as "
                    "3.21.1, or a llama.cpp checkout folder",
                    "check the path, or list the engines: moesweep engine list");
  s.name = spec;
  return s;
}

std::string registered_worker_problem(const fs::path& registry, const std::string& name) {
  try {
    engine_facts(find_engine(registry, name).worker);
    return "";
  } catch (const UserError& e) {
    return e.problem();
  } catch (const std::exception& e) {
    return e.what();
  }
}

bool is_registered(const fs::path& registry, const std::string& name) {
  if (name == kDefaultEngineName) return true;
  std::error_code ec;
  return fs::is_regular_file(registry / name / "engine.json", ec);
}

bool ensure_registered(const fs::path& registry, const EngineSpec& spec,
                       const std::function<void(const std::string&)>& progress) {
  if (is_registered(registry, spec.name)) {
    // One this moesweep can build again but whose worker does not answer it
    // (registered by an older moesweep: another protocol) is built again.
    const std::string why = spec.build ? registered_worker_problem(registry, spec.name) : "";
    if (why.empty()) return false;
    progress(fmt::format("registering '{}' again: {}", spec.name, why));
    remove_engine(registry, spec.name);
  }
  if (!spec.build) {
    find_engine(registry, spec.name);  // throws, naming the engines there are
    return false;
  }
  check_engine_registry(registry, true);
  progress(
      fmt::format("registering '{}' (engine add {} {})", spec.name, spec.name, spec.add_arguments));
  // As `engine add`: Ctrl-C ends the build's process tree and registers nothing (exit 130).
  const StopOnSignal stop(StopOnSignal::Second::kCounted);
  add_engine(registry, spec.name, *spec.build, progress);
  return true;
}

}  // namespace moesweep
