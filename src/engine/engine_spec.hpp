#pragma once
// What `gate --base SPEC`, `history` and `bisect` accept for an engine: a
// registered engine's name, a release's package version (3.21.1, registered
// as release-3.21.1 on first use) or a llama.cpp checkout on disk
// (registered as checkout-NAME-COMMIT, NAME its folder's name with every
// character an engine name cannot hold made '-', COMMIT its git HEAD's first
// 10 hex digits or "nogit"). The names follow the one engine-name rule of
// engine_registry.hpp.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "engine/engine_build.hpp"

namespace moesweep {

struct EngineSpec {
  std::string typed;                  // as the user wrote it
  std::string name;                   // the engine's name in the registry
  std::optional<EngineSource> build;  // how to register it when it is not yet (release, checkout)
  std::string add_arguments;          // the same as `engine add` arguments, for messages
};

// The engine name of a release version: "release-3.21.1".
std::string release_engine_name(const std::string& version);
// Whether `text` is a package version (digits.digits.digits).
bool is_release_version(const std::string& text);
// `text` made an engine-name part: each character a name cannot hold
// becomes '-', at most `max` bytes.
std::string engine_name_part(const std::string& text, size_t max = 40);

// UserError (exit 2, what it is not and what it could be) for a spec that is
// none of the three; `flag` names the option in the message.
EngineSpec resolve_engine_spec(const std::string& spec, const std::string& flag);

// Registers spec's engine in `registry` unless an engine of that name is
// there whose worker answers this moesweep; one that does not (registered by
// an older moesweep: another protocol) is built again where the spec says
// how. Returns whether it built one. A plain name that is not registered
// is a UserError naming the engines there are.
bool ensure_registered(const std::filesystem::path& registry, const EngineSpec& spec,
                       const std::function<void(const std::string&)>& progress);
// Why the registered engine `name`'s worker does not answer this moesweep's
// hello (e.g. it speaks another protocol); "" when it does.
std::string registered_worker_problem(const std::filesystem::path& registry,
                                      const std::string& name);
// Whether `name` is registered in `registry` ("default" always is).
bool is_registered(const std::filesystem::path& registry, const std::string& name);

}  // namespace moesweep
