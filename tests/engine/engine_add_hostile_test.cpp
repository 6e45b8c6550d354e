// `moesweep engine add` and the registry under hostile conditions (issue 35,
// D12, D15, D22): a registry path that is no folder, a folder an interrupted
// add left, an add that runs, flags that would override moesweep's own, and
// Ctrl-C in the middle of a real build (its whole process tree ends, the
// registry stays consistent). Exec engines are registered with a test double
// (a script answering --version): nothing is built for them.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "engine/shared_engines.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;
using test::shell_quoted;

// Test double: a script standing in for another program's llama-bench (only
// its --version is asked at registration).
fs::path exec_tool_double(const fs::path& dir) {
  fs::create_directories(dir);
  const fs::path p = dir / "llama-bench";
  std::ofstream(p) << "#!/bin/sh\n"
                      "[ \"$1\" = --version ] && { echo 'version: 77 (0123abcd)' >&2; exit 0; }\n"
                      "exit 3\n";
  fs::permissions(p, fs::perms::owner_all);
  return p;
}

test::CommandResult engine_cli(const fs::path& registry, const std::string& args) {
  return test::run_cli("engine " + args + " --registry " + shell_quoted(registry));
}

void expect_refused(const test::CommandResult& r, const std::string& in_err) {
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find(in_err), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fix: "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("an add in progress"), std::string::npos) << r.err;  // the old guess
}

// D15: a registry path that is a file, a symlink loop or under /proc was
// "NAME exists (an add in progress...)", and `engine list` an empty registry.
TEST(EngineAddHostile, ARegistryThatIsNoFolderIsNamedAsSuch) {
  const fs::path dir = test::scratch_dir();
  const std::string tool = shell_quoted(exec_tool_double(dir / "bin"));
  std::ofstream(dir / "file") << "not a folder\n";
  fs::create_symlink(dir / "loop", dir / "loop");
  const struct {
    fs::path registry;
    const char* says;
  } cases[] = {{dir / "file", "is not a folder"},
               {dir / "loop", "cannot be reached"},
               {dir / "file" / "below", "cannot be reached"},
               {"/proc/self/moesweep-engines", "is in a kernel file system"},
               {"/proc", "is in a kernel file system"}};
  for (const auto& c : cases) {
    expect_refused(engine_cli(c.registry, "list"), c.says);
    expect_refused(engine_cli(c.registry, "add x --exec " + tool), c.says);
  }
  // A registry not made yet is an empty one, and the first add makes it.
  const fs::path fresh = dir / "not" / "yet";
  auto r = engine_cli(fresh, "list --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out).size(), 1u) << r.out;  // "default" only
  r = engine_cli(fresh, "add x --exec " + tool);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_regular_file(fresh / "x" / "engine.json"));
}

// D12: what an add killed outright (SIGKILL, a power cut) left behind, its
// lock no longer held, is taken over by the next add of that name.
TEST(EngineAddHostile, TheFolderOfAnInterruptedAddIsTakenOverByTheNextAdd) {
  const fs::path dir = test::scratch_dir();
  const fs::path registry = dir / "registry";
  const std::string tool = shell_quoted(exec_tool_double(dir / "bin"));
  for (const char* left : {"add.log", ".add.lock"}) {
    const std::string name = left[0] == '.' ? "locked-once" : "logged";
    fs::create_directories(registry / name / "build");
    std::ofstream(registry / name / left) << "what a killed add left\n";
    const auto r = engine_cli(registry, "add " + name + " --exec " + tool);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("removing what an interrupted add left"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::is_regular_file(registry / name / "engine.json"));
    EXPECT_FALSE(fs::exists(registry / name / "build"));
  }
}

// A folder of the name that no add of ours made is not deleted: the user is
// told what to do.
TEST(EngineAddHostile, AFolderNoAddMadeIsLeftAloneWithTheFix) {
  const fs::path dir = test::scratch_dir();
  const fs::path registry = dir / "registry";
  fs::create_directories(registry / "mine");
  std::ofstream(registry / "mine" / "notes.txt") << "my own file\n";
  const auto r =
      engine_cli(registry, "add mine --exec " + shell_quoted(exec_tool_double(dir / "bin")));
  expect_refused(r, "is no engine (no engine.json)");
  EXPECT_NE(r.err.find("moesweep engine remove mine"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(registry / "mine" / "notes.txt"));
}

// While another process holds an add's lock, that add is running: a second
// add and a remove of the name are refused, and succeed once it is released.
TEST(EngineAddHostile, AnAddInProgressIsNeitherTakenOverNorRemoved) {
  const fs::path dir = test::scratch_dir();
  const fs::path registry = dir / "registry";
  const std::string add = "add busy --exec " + shell_quoted(exec_tool_double(dir / "bin"));
  fs::create_directories(registry / "busy");
  const int fd = ::open((registry / "busy" / ".add.lock").c_str(), O_CREAT | O_RDWR, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  expect_refused(engine_cli(registry, add), "is being added by another moesweep");
  expect_refused(engine_cli(registry, "remove busy"), "is being added by another moesweep");
  EXPECT_TRUE(fs::exists(registry / "busy"));
  ::close(fd);
  EXPECT_EQ(engine_cli(registry, add).exit_code, 0);
  EXPECT_EQ(engine_cli(registry, "remove busy").exit_code, 0);
}

// D22: --cmake-flag may not set what engine add sets itself; refused before
// anything is fetched, claimed or built.
TEST(EngineAddHostile, FlagsEngineAddSetsItselfAreRefused) {
  const fs::path registry = test::scratch_dir() / "registry";
  test::engine_source("include/llama.h");  // fails the test when the checkout is missing
  const std::string checkout =
      shell_quoted(fs::path(test::source_dir()) / "third_party" / "llama.cpp");
  const struct {
    std::string args;
    const char* variable;
  } cases[] = {
      {"--llama-cpp " + checkout + " --cmake-flag -DMOESWEEP_LLAMA_DIR=/etc", "MOESWEEP_LLAMA_DIR"},
      {"--release 3.21.1 --cmake-flag -DCMAKE_BUILD_TYPE:STRING=Debug", "CMAKE_BUILD_TYPE"},
      {"--release 3.21.1 --from-source --cmake-flag -DMOESWEEP_ENGINE=prebuilt", "MOESWEEP_ENGINE"},
      {"--release 3.21.1 --cmake-flag -DMOESWEEP_ENGINE_PACKAGE=x", "MOESWEEP_ENGINE_PACKAGE"},
  };
  for (const auto& c : cases) {
    const auto r = engine_cli(registry, "add x " + c.args);
    expect_refused(r, fmt::format("sets {}, which engine add sets itself", c.variable));
    EXPECT_FALSE(fs::exists(registry / "x")) << c.args;
  }
}

// Every process whose command line names `needle` (the engine's folder).
std::vector<pid_t> processes_naming(const std::string& needle) {
  std::vector<pid_t> out;
  for (const fs::directory_entry& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "cmdline");
    std::string args((std::istreambuf_iterator<char>(in)), {});
    if (args.find(needle) != std::string::npos) out.push_back(std::stoi(name));
  }
  return out;
}

// D12: SIGINT to engine add in the middle of a real build (a llama.cpp
// checkout compiled natively) ends cmake, ninja and the compilers, removes
// the half-made folder and exits 130; the registry lists what it did before.
TEST(EngineAddHostile, CtrlCEndsTheBuildsProcessTreeAndLeavesTheRegistryConsistent) {
  test::engine_source("include/llama.h");
  const fs::path dir = test::scratch_dir();
  const fs::path registry = dir / "registry";
  const fs::path checkout = fs::path(test::source_dir()) / "third_party" / "llama.cpp";
  const pid_t pid = test::spawn_cli("engine add half --llama-cpp " + shell_quoted(checkout) +
                                        " --registry " + shell_quoted(registry),
                                    dir / "out", dir / "err");
  // Ready once the compile step has started: a process tree is building.
  const auto said = [&](const std::string& what) {
    std::ifstream in(dir / "err");
    return std::string((std::istreambuf_iterator<char>(in)), {}).find(what) != std::string::npos;
  };
  for (int i = 0; i < 6000 && !said("[engine add] compiling") && !said("error:"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(said("[engine add] compiling")) << "the build never started";
  const std::string folder = (registry / "half").string();
  // The tree the scan below must find gone is seen while it builds.
  std::vector<pid_t> building = processes_naming(folder);
  for (int i = 0; i < 200 && building.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    building = processes_naming(folder);
  }
  EXPECT_FALSE(building.empty()) << "no process of the build seen";
  ::kill(pid, SIGINT);
  const int code = test::wait_exit_code(pid, std::chrono::seconds(120));
  std::ifstream err_in(dir / "err");
  const std::string err((std::istreambuf_iterator<char>(err_in)), {});
  EXPECT_EQ(code, 130) << err;
  EXPECT_NE(err.find("was interrupted"), std::string::npos) << err;
  // Nothing of the build is left running (bounded wait: killed processes are
  // reaped by their parents, then by init).
  std::vector<pid_t> left = processes_naming(folder);
  for (int i = 0; i < 300 && !left.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    left = processes_naming(folder);
  }
  for (pid_t p : left) ::kill(p, SIGKILL);  // never leave them behind, also when failing
  EXPECT_TRUE(left.empty()) << left.size() << " processes of the build still run";
  EXPECT_FALSE(fs::exists(registry / "half"));
  EXPECT_TRUE(fs::is_regular_file(registry / ".half.failed.log"));
  const auto r = engine_cli(registry, "list --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out).size(), 1u) << r.out;
}

// Issue 44, item 18: an add stopped before its step said anything left an
// empty .NAME.failed.log in the registry. The step here is a test double: a
// `cmake` first on PATH that writes nothing and waits (the real configure
// writes at once, so it cannot be caught silent).
TEST(EngineAddHostile, AnAddStoppedBeforeItsStepSaidAnythingLeavesNoEmptyLog) {
  test::engine_source("include/llama.h");
  const fs::path dir = test::scratch_dir();
  const fs::path registry = dir / "registry";
  const fs::path bin = dir / "bin";
  fs::create_directories(bin);
  std::ofstream(bin / "cmake") << "#!/bin/sh\necho $$ > '" << (dir / "started").string()
                               << "'\nexec sleep 600\n";
  fs::permissions(bin / "cmake", fs::perms::owner_all);
  const fs::path checkout = fs::path(test::source_dir()) / "third_party" / "llama.cpp";
  const pid_t pid =
      test::spawn_shell("exec env PATH=" + shell_quoted(bin) + ":\"$PATH\" " + test::cli_path() +
                            " engine add quiet --llama-cpp " + shell_quoted(checkout) +
                            " --registry " + shell_quoted(registry),
                        dir / "out", dir / "err");
  for (int i = 0; i < 6000 && !fs::exists(dir / "started"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(fs::exists(dir / "started")) << "the configure step never started";
  pid_t step = 0;
  std::ifstream(dir / "started") >> step;
  ::kill(pid, SIGINT);
  EXPECT_EQ(test::wait_exit_code(pid, std::chrono::seconds(60)), 130);
  EXPECT_TRUE(test::gone_within(step, std::chrono::seconds(15))) << "the step was left running";
  if (step > 0 && test::process_alive(step)) ::kill(step, SIGKILL);
  EXPECT_FALSE(fs::exists(registry / "quiet"));
  EXPECT_FALSE(fs::exists(registry / ".quiet.failed.log"));
}

}  // namespace
}  // namespace moesweep
