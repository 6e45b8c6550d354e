#include "engine/engine_build.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <memory>
#include <set>
#include <thread>

#include "engine/build_step.hpp"
#include "engine/engine.hpp"
#include "engine/engine_claim.hpp"
#include "engine/exec_tool.hpp"
#include "engine/release_pins.hpp"
#include "util/error.hpp"
#include "util/paths.hpp"
#include "util/stop_signal.hpp"

namespace moesweep {
namespace fs = std::filesystem;

namespace {

// The last lines of a build log, for the message of a failed step.
std::string log_tail(const fs::path& log, size_t lines) {
  std::ifstream in(log);
  std::deque<std::string> tail;
  for (std::string line; std::getline(in, line);) {
    tail.push_back(line.substr(0, 300));
    if (tail.size() > lines) tail.pop_front();
  }
  std::string out;
  for (const std::string& l : tail) out += "\n    " + l;
  return out;
}

// Whether `program` is an executable on $PATH.
bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (size_t start = 0; start <= dirs.size();) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const fs::path candidate = fs::path(dirs.substr(start, end - start)) / program;
    if (end > start && access(candidate.c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

std::vector<std::string> configure_argv(const fs::path& tree, const fs::path& dir,
                                        const EngineSource& src) {
  std::vector<std::string> a = {"cmake",
                                "-S",
                                tree.string(),
                                "-B",
                                (dir / "build").string(),
                                "-DCMAKE_BUILD_TYPE=Release",
                                "-DMOESWEEP_BUILD_TESTS=OFF"};
  append_generator_and_launcher(a);
  if (!src.llama_cpp.empty()) {
    a.push_back("-DMOESWEEP_ENGINE=source");
    a.push_back("-DMOESWEEP_LLAMA_DIR=" + src.llama_cpp.string());
  } else if (src.from_source) {
    a.push_back("-DMOESWEEP_ENGINE=source");
    a.push_back("-DMOESWEEP_LLAMA_DIR=" + (dir / "engine" / "src").string());
  } else {
    a.push_back("-DMOESWEEP_ENGINE=prebuilt");
    a.push_back("-DMOESWEEP_LLAMA_DIR=" + (dir / "engine" / "src").string());
    a.push_back("-DMOESWEEP_ENGINE_LIB_DIR=" + (dir / "engine" / "lib").string());
    a.push_back("-DMOESWEEP_ENGINE_PACKAGE=@node-llama-cpp/linux-x64@" + src.release);
  }
  a.insert(a.end(), src.build_flags.begin(), src.build_flags.end());
  return a;
}

std::string build_jobs() {
  const char* jobs = std::getenv("MOESWEEP_JOBS");
  return jobs && *jobs ? jobs : std::to_string(std::max(1u, std::thread::hardware_concurrency()));
}

std::vector<BuildStep> add_steps(const fs::path& tree, const fs::path& dir,
                                 const EngineSource& src) {
  if (!src.ik_llama.empty()) return ik_llama_steps(tree, dir, src, build_jobs());
  std::vector<BuildStep> steps;
  if (!src.release.empty()) {
    std::vector<std::string> fetch = {(tree / "scripts" / "engine-fetch").string(), src.release,
                                      (dir / "engine").string(), "--source"};
    if (!src.from_source) fetch.push_back("--prebuilt");
    steps.push_back(
        {"fetching llama.cpp package " + src.release + " from the npm registry", fetch});
  }
  steps.push_back({"configuring the worker's build", configure_argv(tree, dir, src)});
  const std::string n = build_jobs();
  steps.push_back(
      {src.release.empty() || src.from_source
           ? "compiling the engine and its worker (minutes)"
           : "compiling the worker against the prebuilt libraries",
       {"cmake", "--build", (dir / "build").string(), "--target", "moesweep-worker", "-j", n}});
  return steps;
}

std::string describe_source(const EngineSource& src) {
  if (!src.exec.empty()) return "external tool " + src.exec.string();
  if (!src.ik_llama.empty()) return "ik_llama.cpp checkout " + src.ik_llama.string();
  if (!src.llama_cpp.empty()) return "checkout " + src.llama_cpp.string();
  return fmt::format("release {} ({})", src.release, src.from_source ? "from source" : "prebuilt");
}

// ik_llama.cpp is told from mainline by its iqk kernels (ggml/src/iqk).
bool is_ik_llama(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir / "ggml" / "src" / "iqk", ec);
}

void check_checkout(const EngineSource& src) {
  const bool ik = !src.ik_llama.empty();
  const fs::path& dir = ik ? src.ik_llama : src.llama_cpp;
  if (dir.empty()) return;
  const char* kind = ik ? "ik_llama.cpp" : "llama.cpp";
  std::error_code ec;
  if (!fs::is_regular_file(dir / "include" / "llama.h", ec))
    throw UserError(
        fmt::format("engine add: {} is not {} {} checkout (no include/llama.h)", dir.string(),
                    ik ? "an" : "a", kind),
        fmt::format("the top folder of {} {} source tree", ik ? "an" : "a", kind),
        fmt::format("give the folder you cloned {} into (the branch checked out)", kind));
  if (ik != is_ik_llama(dir))
    throw UserError(
        fmt::format("engine add: {} is {} checkout", dir.string(),
                    ik ? "a mainline llama.cpp, not an ik_llama.cpp,"
                       : "an ik_llama.cpp, not a mainline llama.cpp,"),
        ik ? "ik_llama.cpp's source (it has ggml/src/iqk)" : "mainline llama.cpp's source",
        ik ? "register it with --llama-cpp DIR" : "register it with --ik-llama DIR");
}

void check_source(const std::string& name, const EngineSource& src) {
  check_engine_name(name, "engine add");
  if (!src.release.empty()) {  // before anything is fetched
    const PinnedRelease pinned = supported_release(src.release);
    if (!pinned.known_issue.empty())
      fmt::print(stderr, "engine add: note: {} ({}): {}\n", pinned.version, pinned.release,
                 pinned.known_issue);
  }
  if (name == kDefaultEngineName)
    throw UserError("engine add: 'default' is this moesweep's own worker", "another name",
                    "pick another name, e.g. main or pr");
  if (!src.release.empty() + !src.llama_cpp.empty() + !src.ik_llama.empty() + !src.exec.empty() !=
      1)
    throw UserError("engine add: say where the engine comes from",
                    "exactly one of --release VERSION, --llama-cpp DIR, --ik-llama DIR and "
                    "--exec PATH",
                    "e.g. moesweep engine add v050 --release 3.22.1");
  if (!src.exec.empty() && !src.build_flags.empty())
    throw UserError("engine add: --cmake-flag with --exec",
                    "no build flags for a tool moesweep "
                    "does not build",
                    "build the tool with those flags yourself; drop --cmake-flag");
  check_checkout(src);
  for (const std::string& f : src.build_flags)
    if (f.rfind("-D", 0) != 0 || f.find('=') == std::string::npos || f.size() > 300 ||
        f.find_first_of("\n\r\t") != std::string::npos)
      throw UserError(fmt::format("engine add: build flag '{}' is not a CMake -DNAME=VALUE", f),
                      "-DNAME=VALUE, e.g. -DGGML_AVX512=OFF", "correct --cmake-flag");
}

// A -D flag's variable: -DNAME=VALUE and -DNAME:TYPE=VALUE name NAME.
std::string flag_variable(const std::string& flag) {
  return flag.rfind("-D", 0) == 0 ? flag.substr(2, flag.find_first_of(":=") - 2) : "";
}

// A --cmake-flag must not set what the steps set themselves: the registered
// engine would not be what was built (-DMOESWEEP_LLAMA_DIR=/etc builds
// another tree than the one recorded; -DCMAKE_BUILD_TYPE=Debug times a debug
// build as this one).
void check_flags_moesweep_sets(const std::vector<BuildStep>& steps,
                               const std::vector<std::string>& flags) {
  std::set<std::string> ours;
  for (const BuildStep& step : steps)
    for (const std::string& a : step.argv)
      if (const std::string v = flag_variable(a); !v.empty()) ours.insert(v);
  for (const std::string& f : flags) {
    const std::string v = flag_variable(f);
    if (!ours.count(v)) continue;
    throw UserError(
        fmt::format("engine add: --cmake-flag {} sets {}, which engine add sets itself", f, v),
        "flags for the engine's own options, e.g. -DGGML_AVX512=OFF",
        v == "MOESWEEP_LLAMA_DIR"
            ? std::string("to build another checkout, give it: --llama-cpp DIR")
            : "drop that --cmake-flag");
  }
}

// Where a failed add's log is kept: beside the registry's folders, hidden.
fs::path failed_log_path(const fs::path& registry, const std::string& name) {
  return registry / ("." + name + ".failed.log");
}

// Runs every step; on failure or a stop removes `dir` and throws with the log tail.
void run_steps(const std::vector<BuildStep>& steps, const fs::path& dir, const fs::path& registry,
               const std::string& name, const std::function<void(const std::string&)>& progress) {
  const fs::path log = dir / "add.log";
  for (const BuildStep& step : steps) {
    StepEnd end;
    if (!StopOnSignal::requested()) {
      progress(step.what);
      end = run_step_logged(step.argv, log);
      if (!end.stopped && WIFEXITED(end.status) && WEXITSTATUS(end.status) == 0) continue;
    }
    const bool interrupted =
        StopOnSignal::requested() || (WIFSIGNALED(end.status) && WTERMSIG(end.status) == SIGINT);
    const std::string tail = log_tail(log, 25);
    // The log is kept beside the registry when it holds something (an empty
    // one, of a step stopped before it said anything, tells nothing).
    const fs::path kept = failed_log_path(registry, name);
    std::error_code ec;
    const bool keep = fs::file_size(log, ec) > 0 && !ec;
    if (keep) fs::rename(log, kept, ec);
    const std::string where = keep && !ec ? "log: " + kept.string() : "it wrote no log";
    fs::remove_all(dir, ec);
    throw UserError(fmt::format("engine add {}: {} {} ({}){}", name, step.what,
                                interrupted ? "was interrupted" : "failed", where, tail),
                    "a step that succeeds",
                    interrupted ? fmt::format("nothing was registered and {} is removed: run the "
                                              "same engine add again",
                                              dir.string())
                                : "fix what the log says and run engine add again; nothing was "
                                  "registered",
                    interrupted ? exit_code::kInterrupted : exit_code::kBadInput);
  }
}

// Nothing to build: the tool's path, which tool, and what its --version says.
RegisteredEngine add_exec_engine(const fs::path& registry, const std::string& name,
                                 const EngineSource& source,
                                 const std::function<void(const std::string&)>& progress) {
  const fs::path exe = fs::absolute(source.exec).lexically_normal();
  const ExecTool tool = detect_exec_tool(exe, source.exec_tool);
  RegisteredEngine e;
  e.name = name;
  e.kind = kExecEngineKind;
  e.source = describe_source(source);
  e.exec = exe;
  e.exec_tool = exec_tool_name(tool);
  const ExecVersion version = exec_version(exe);  // llama-bench has no --version: its rows say
  e.release = version.release;
  e.commit = version.commit;
  const auto lock = claim_engine_dir(registry, name, progress);
  write_engine_file(registry / name / "engine.json", e);
  return e;
}

}  // namespace

void append_generator_and_launcher(std::vector<std::string>& a) {
  const auto cmake = std::find(a.begin(), a.end(), "cmake");  // after "env X=Y" if any
  if (on_path("ninja") && cmake != a.end()) a.insert(cmake + 1, {"-G", "Ninja"});
  if (on_path("ccache")) {
    a.push_back("-DCMAKE_C_COMPILER_LAUNCHER=ccache");
    a.push_back("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache");
  }
}

RegisteredEngine add_engine(const fs::path& registry, const std::string& name,
                            const EngineSource& source,
                            const std::function<void(const std::string&)>& progress) {
  check_source(name, source);
  if (!source.exec.empty()) return add_exec_engine(registry, name, source, progress);
  const fs::path tree = source_tree_dir();
  if (tree.empty())
    throw UserError("engine add: the moesweep source tree this binary was built from is gone",
                    "the checkout with CMakeLists.txt and scripts/",
                    "run the moesweep of a checkout");
  const fs::path dir = registry / name;
  EngineSource bare = source;
  bare.build_flags.clear();
  check_flags_moesweep_sets(add_steps(tree, dir, bare), source.build_flags);
  const auto lock = claim_engine_dir(registry, name, progress);
  std::error_code ec;
  if (!std::getenv("CCACHE_BASEDIR")) setenv("CCACHE_BASEDIR", tree.c_str(), 0);
  run_steps(add_steps(tree, dir, source), dir, registry, name, progress);
  RegisteredEngine e;
  e.name = name;
  e.source = describe_source(source);
  e.build_flags = source.build_flags;
  e.worker = fs::absolute(dir / "build" / "bin" / "moesweep-worker");
  try {
    const EngineFacts& facts = engine_facts(e.worker);
    e.kind = facts.kind.empty() ? "llama.cpp" : facts.kind;
    e.release = facts.release;
    e.commit = facts.commit;
    e.build = facts.build;
    e.cpu_variant = facts.cpu_variant;
    e.api = facts.api;
    e.reads = facts.reads;
    e.max_experts = facts.max_experts;
  } catch (const std::exception& err) {
    fs::remove_all(dir, ec);
    throw UserError(
        fmt::format("engine add {}: the worker built but does not start: {}", name, err.what()),
        "a worker that answers its hello", "see the engine's log above; nothing was registered");
  }
  write_engine_file(dir / "engine.json", e);
  fs::remove(failed_log_path(registry, name), ec);  // an earlier failure's: this add succeeded
  return e;
}

void remove_engine(const fs::path& registry, const std::string& name) {
  check_engine_name(name, "engine remove");
  const fs::path dir = registry / name;
  std::error_code ec;
  if (name == kDefaultEngineName || !fs::is_directory(dir, ec))
    throw UserError(fmt::format("engine remove: no engine folder {}", dir.string()),
                    "a registered engine (moesweep engine list)", "check the name");
  if (add_in_progress(dir))
    throw UserError(fmt::format("engine remove: {} is being added by another moesweep", name),
                    "an engine no add is building", "wait for that add to end, or stop it");
  fs::remove_all(dir, ec);
  if (ec)
    throw UserError(fmt::format("engine remove: cannot remove {}: {}", dir.string(), ec.message()),
                    "a folder moesweep may delete", "remove it by hand");
}

}  // namespace moesweep
