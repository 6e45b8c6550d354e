#pragma once
// Helpers shared by the tests: scratch directories, running the real CLI, and
// the tiny twin every engine test uses (built once, then taken from the cache).
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace moesweep::test {

// This build's paths, from a file CMake generates (test_paths.cpp): never
// compile definitions, so that ccache shares every test object between
// checkouts at different paths.
const char* cli_path();       // the moesweep binary under test
const char* test_data_dir();  // tests/data
const char* test_tmp_dir();   // <build>/test-tmp
const char* source_dir();     // the repository

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs build/bin/moesweep with `args` (a shell-quoted string) and captures both streams.
CommandResult run_cli(const std::string& args);
// Runs any shell command, same capture.
CommandResult run_shell(const std::string& command);

// Starts build/bin/moesweep with `args` in the background, stdout and stderr
// to these files; returns its pid (for tests that signal or race it).
pid_t spawn_cli(const std::string& args, const std::filesystem::path& out,
                const std::filesystem::path& err);
// The same for any `sh -c` command (start it with `exec` for the pid to be
// the program's own).
pid_t spawn_shell(const std::string& command, const std::filesystem::path& out,
                  const std::filesystem::path& err);
// Whether `pid` runs (a zombie does not: it answers kill(0) but is gone).
bool process_alive(pid_t pid);
// Whether `pid` is gone by `limit` (looked at every 20 ms).
bool gone_within(pid_t pid, std::chrono::milliseconds limit);
// Waits for `pid` up to `limit`; kills it (and fails the test) if it is still
// running, so no test leaves a moesweep behind. Returns its exit code, or
// 128 + signal.
int wait_exit_code(pid_t pid, std::chrono::seconds limit);

// A fresh, empty directory under build/test-tmp named after the running test.
std::filesystem::path scratch_dir();

// The tiny kimi-k2.5 twin at the given quant (default Q4_K_S), built once.
std::filesystem::path tiny_twin(const std::string& quant = "Q4_K_S");
// The tiny twin of any shipped model profile, built once.
std::filesystem::path tiny_twin_of(const std::string& profile, const std::string& quant = "Q4_K_S");

// One `moesweep` invocation shared by every test that reads its results: ctest
// runs each test in its own process, so the run is kept on disk under
// build/test-tmp/shared/<name>-<key> (key: the args and this moesweep binary)
// and made once, under a file lock, by whichever test gets there first.
// `args` must not contain --out-dir: the run lands in `out_dir`.
struct SharedRun {
  CommandResult cli;
  std::filesystem::path out_dir;  // what was passed as --out-dir
};
SharedRun shared_cli_run(const std::string& name, const std::string& args);

// The single run directory under `out_dir` (fails the test if there is not exactly one).
std::filesystem::path only_run_dir(const std::filesystem::path& out_dir);

// A file of the pinned engine's source tree (third_party/llama.cpp), e.g.
// "tools/llama-bench/llama-bench.cpp"; fails the test when it is missing.
std::string engine_source(const std::string& relative_path);

// Runs `f`, which must refuse with a UserError as the house rules want it:
// exit 2, saying what was expected and the fix. Returns "PROBLEM | expected
// EXPECTED" for the caller to look into; fails the test when `f` accepts.
std::string refused(const std::function<void()>& f);

inline constexpr uint64_t MiB = uint64_t{1} << 20;

// A whole file's bytes ("" when it cannot be read).
std::string slurp(const std::filesystem::path& file);

// Non-empty lines of a text file.
std::vector<std::string> read_lines(const std::filesystem::path& path);

// `text` with runs of spaces collapsed to one: a Markdown table's column
// padding follows its widest cell, and measured cells vary in width
// ("754.60 ± 68.44" vs "516.42 ± 265.98 !"), so tests look for headers in this.
inline std::string squeezed(const std::string& text) {
  std::string out;
  for (char c : text)
    if (c != ' ' || out.empty() || out.back() != ' ') out += c;
  return out;
}

// `p` in single quotes for a shell command line (our test paths hold no quote).
inline std::string shell_quoted(const std::filesystem::path& p) {
  std::string quoted = "'";  // not "'" + p.string(): GCC 12 warns (-Wrestrict) on that inlined
  quoted += p.string();
  return quoted += "'";
}

}  // namespace moesweep::test

#define MOESWEEP_CLI (::moesweep::test::cli_path())
#define MOESWEEP_TEST_DATA (::moesweep::test::test_data_dir())
#define MOESWEEP_TEST_TMP (::moesweep::test::test_tmp_dir())
#define MOESWEEP_SOURCE_DIR (::moesweep::test::source_dir())

namespace moesweep::test {
// tests/data/proc: recorded /proc files.
inline const std::filesystem::path kProc = std::filesystem::path(MOESWEEP_TEST_DATA) / "proc";
}  // namespace moesweep::test
