// `moesweep engine add|list|remove`: the engine builds a sweep can measure
// side by side (engine/engine_registry.hpp, engine/engine_build.hpp).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "engine/engine_build.hpp"
#include "engine/engine_registry.hpp"
#include "util/stop_signal.hpp"

namespace moesweep::cli {
namespace {

struct EngineArgs {
  std::string registry;
  std::string name;
  EngineSource source;
  std::string llama_cpp;
  std::string ik_llama;
  bool json = false;
};

std::filesystem::path registry_of(const EngineArgs& a) {
  return a.registry.empty() ? engine_registry_dir() : std::filesystem::path(a.registry);
}

std::string short_commit(const std::string& commit) {
  return commit.size() > 10 ? commit.substr(0, 10) : commit;
}

int print_engines(const EngineArgs& a) {
  const std::vector<RegisteredEngine> engines = list_engines(registry_of(a));
  if (a.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const RegisteredEngine& e : engines)
      out.push_back({{"name", e.name},
                     {"kind", e.kind},
                     {"source", e.source},
                     {"release", e.release},
                     {"commit", e.commit},
                     {"build", e.build},
                     {"build_flags", e.build_flags},
                     {"cpu_variant", e.cpu_variant},
                     {"api", e.api},
                     {"reads", e.reads},
                     {"max_experts", e.max_experts},
                     {"worker", e.worker.string()},
                     {"exec", e.exec.string()},
                     {"exec_tool", e.exec_tool}});
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  fmt::print("engines in {} (and this moesweep's own, 'default'):\n", registry_of(a).string());
  size_t w = 12;  // the name column: as wide as the longest name (release-3.21.1)
  for (const RegisteredEngine& e : engines) w = std::max(w, e.name.size());
  fmt::print("  {:<{}} {:<13} {:<8} {:<10} {:<10} {}\n", "name", w, "kind", "release", "commit",
             "cpu", "build");
  for (const RegisteredEngine& e : engines) {
    std::string build = e.build.empty() ? e.source : e.build;
    if (!e.exec_tool.empty()) build = e.exec_tool + " " + e.exec.string();
    for (const std::string& f : e.build_flags) build += " " + f;
    fmt::print("  {:<{}} {:<13} {:<8} {:<10} {:<10} {}\n", e.name, w, e.kind,
               e.release.empty() ? "-" : e.release, e.commit.empty() ? "-" : short_commit(e.commit),
               e.cpu_variant.empty() ? "-" : e.cpu_variant, build);
  }
  return 0;
}

int add(EngineArgs& a) {
  // Ctrl-C and SIGTERM end the build's process tree and remove the folder;
  // a second Ctrl-C kills that tree at once instead of moesweep.
  const StopOnSignal stop(StopOnSignal::Second::kCounted);
  if (!a.llama_cpp.empty()) a.source.llama_cpp = std::filesystem::absolute(a.llama_cpp);
  if (!a.ik_llama.empty()) a.source.ik_llama = std::filesystem::absolute(a.ik_llama);
  const RegisteredEngine e = add_engine(registry_of(a), a.name, a.source, [](const std::string& s) {
    fmt::print(stderr, "[engine add] {}\n", s);
  });
  if (e.kind == kExecEngineKind) {
    fmt::print(
        "registered engine '{}': {} {} (release {}, commit {}); a sweep runs it and ingests "
        "its output\n",
        e.name, e.exec_tool, e.exec.string(), e.release.empty() ? "unknown" : e.release,
        e.commit.empty() ? "unknown" : short_commit(e.commit));
    return 0;
  }
  fmt::print("registered engine '{}': {} {} ({}), CPU variant {}\n  worker: {}\n", e.name, e.kind,
             e.release, short_commit(e.commit), e.cpu_variant, e.worker.string());
  return 0;
}

}  // namespace

void add_engine_command(CLI::App& app, CommandRunner& run) {
  auto args = std::make_shared<EngineArgs>();
  CLI::App* cmd = app.add_subcommand(
      "engine", "register engine builds to measure side by side (sweep --engine a,b)");
  cmd->require_subcommand(1);
  const auto registry_option = [args](CLI::App* sub) {
    sub->add_option("--registry", args->registry,
                    "the registry folder (default $MOESWEEP_ENGINES or "
                    "~/.local/share/moesweep/engines)");
  };

  CLI::App* add_cmd =
      cmd->add_subcommand("add", "build a worker against an engine and register it");
  add_cmd->add_option("name", args->name, "the engine's name in --engine and in every record")
      ->required();
  add_cmd->add_option(
      "--release", args->source.release,
      "a llama.cpp release by its npm package version, 3.1.1 (b3889) to 3.22.1 (v0.5.0): "
      "moesweep engine releases lists them");
  add_cmd->add_flag("--from-source", args->source.from_source,
                    "compile the release natively instead of using its prebuilt libraries");
  add_cmd->add_option("--llama-cpp", args->llama_cpp, "a llama.cpp checkout on disk (a PR branch)");
  add_cmd->add_option("--ik-llama", args->ik_llama,
                      "an ik_llama.cpp checkout on disk (built in DIR/build-moesweep*)");
  add_cmd->add_option("--exec", args->source.exec,
                      "another program's llama-sweep-bench or llama-bench: run over the plan, its "
                      "output ingested");
  add_cmd->add_option("--exec-tool", args->source.exec_tool,
                      "which tool --exec is when its file name does not say: llama-sweep-bench or "
                      "llama-bench");
  add_cmd
      ->add_option("--cmake-flag", args->source.build_flags,
                   "a CMake flag for the engine's build, e.g. -DGGML_AVX512=OFF (repeatable)")
      ->allow_extra_args(false);
  registry_option(add_cmd);
  add_cmd->callback([&run, args] { run = [args] { return add(*args); }; });

  add_engine_releases_command(*cmd, run);
  CLI::App* list_cmd = cmd->add_subcommand("list", "the registered engines and what each is");
  list_cmd->add_flag("--json", args->json, "as JSON");
  registry_option(list_cmd);
  list_cmd->callback([&run, args] { run = [args] { return print_engines(*args); }; });

  CLI::App* remove_cmd = cmd->add_subcommand("remove", "delete a registered engine and its build");
  remove_cmd->add_option("name", args->name, "the engine's name")->required();
  registry_option(remove_cmd);
  remove_cmd->callback([&run, args] {
    run = [args] {
      remove_engine(registry_of(*args), args->name);
      fmt::print("removed engine '{}'\n", args->name);
      return 0;
    };
  });
}

}  // namespace moesweep::cli
