#pragma once
// The engine builds moesweep can measure, by name (`moesweep engine add/list`,
// `sweep --engine a,b`). Each registered engine is a folder of the registry,
// <registry>/<name>/, holding engine.json (what it is and where its worker
// is) beside the build of that worker. The name "default" is always there:
// the worker this moesweep was built with (default_worker_path()).
//
// engine.json is read like every file of ours: typed, bounded, and a broken
// one is a UserError naming the file and the field (exit 2).
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace moesweep {

inline constexpr const char* kDefaultEngineName = "default";
// The kind of an engine that is another program's benchmark binary
// (engine add --exec, engine/exec_tool.hpp): no worker of ours.
inline constexpr const char* kExecEngineKind = "exec";

struct RegisteredEngine {
  std::string name;
  std::string kind = "llama.cpp";  // the engine's family: llama.cpp, ik_llama.cpp or exec
  std::string source;              // "release 3.22.1 (prebuilt)", "checkout /src/llama.cpp", ...
  std::vector<std::string> build_flags;  // CMake -D flags given to `engine add`
  // From the worker's hello when it was registered.
  std::string release, commit, build, cpu_variant;
  std::string api;                 // its llama.cpp API variants (EngineFacts::api)
  std::vector<std::string> reads;  // the GGUF architectures and layouts it loads
  int max_experts = 0;             // routed experts per layer it loads (0 unknown)
  std::filesystem::path worker;    // its moesweep-worker binary ("" for kind exec)
  // kind exec: the tool's binary and which tool it is (llama-sweep-bench, llama-bench)
  std::filesystem::path exec;
  std::string exec_tool;
};

// $MOESWEEP_ENGINES, else $XDG_DATA_HOME/moesweep/engines, else
// ~/.local/share/moesweep/engines.
std::filesystem::path engine_registry_dir();

// Whether the registry folder exists; UserError (exit 2, the system's reason)
// when the path is a file, a symlink loop, unreadable or under /proc, /sys or
// /dev. `make`: create it when missing (UserError when that fails).
bool check_engine_registry(const std::filesystem::path& registry, bool make);

// The engine-name rule, in one place: letters, digits, '.', '_' and '-', at
// most kEngineNameMax bytes, not starting with '.'.
inline constexpr size_t kEngineNameMax = 64;
bool is_engine_name_char(char c);
// UserError (exit 2) unless `name` is a usable engine name.
void check_engine_name(const std::string& name, const std::string& origin);

// Every registered engine, by name, after "default". A folder whose
// engine.json is missing (an `engine add` that did not finish) is skipped.
std::vector<RegisteredEngine> list_engines(const std::filesystem::path& registry);
// The engine called `name` ("default" included); UserError listing the known
// names when there is none.
RegisteredEngine find_engine(const std::filesystem::path& registry, const std::string& name);
// The default engine: this moesweep's own worker.
RegisteredEngine default_engine();

// engine.json of one engine (typed reader; UserError naming the file).
RegisteredEngine read_engine_file(const std::filesystem::path& file);
void write_engine_file(const std::filesystem::path& file, const RegisteredEngine& engine);

}  // namespace moesweep
