#include "support/test_support.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "util/error.hpp"
#include "util/hash.hpp"

namespace moesweep::test {

pid_t spawn_cli(const std::string& args, const std::filesystem::path& out,
                const std::filesystem::path& err) {
  return spawn_shell("exec " + std::string(MOESWEEP_CLI) + " " + args, out, err);
}

pid_t spawn_shell(const std::string& command, const std::filesystem::path& out,
                  const std::filesystem::path& err) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(o, 1);
    ::dup2(e, 2);
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

bool process_alive(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  std::getline(in, stat);
  const size_t close = stat.rfind(')');
  return close != std::string::npos && stat.size() > close + 2 && stat[close + 2] != 'Z';
}

bool gone_within(pid_t pid, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (process_alive(pid) && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return !process_alive(pid);
}

std::string engine_source(const std::string& relative_path) {
  const std::filesystem::path file =
      std::filesystem::path(MOESWEEP_SOURCE_DIR) / "third_party/llama.cpp" / relative_path;
  std::ifstream in(file);
  if (!in) ADD_FAILURE() << "cannot read the engine's " << file << ": run scripts/setup";
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int wait_exit_code(pid_t pid, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      ADD_FAILURE() << "moesweep did not exit within " << limit.count() << " s";
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

CommandResult run_shell(const std::string& command) {
  const std::filesystem::path dir = scratch_dir() / "_cmd";
  std::filesystem::create_directories(dir);
  const std::string out_file = (dir / "stdout").string();
  const std::string err_file = (dir / "stderr").string();
  const std::string full = "(" + command + ") >'" + out_file + "' 2>'" + err_file + "' </dev/null";
  const int status = std::system(full.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  auto slurp = [](const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  r.out = slurp(out_file);
  r.err = slurp(err_file);
  return r;
}

CommandResult run_cli(const std::string& args) {
  return run_shell(std::string(MOESWEEP_CLI) + " " + args);
}

std::filesystem::path scratch_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "global";
  for (char& c : name)
    if (c == '/') c = '_';
  static std::string created_for;
  const std::filesystem::path dir = std::filesystem::path(MOESWEEP_TEST_TMP) / name;
  if (created_for != name) {  // fresh once per test, then reused within it
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    created_for = name;
  }
  return dir;
}

std::filesystem::path tiny_twin(const std::string& quant) {
  return tiny_twin_of("kimi-k2.5", quant);
}

std::filesystem::path tiny_twin_of(const std::string& profile, const std::string& quant) {
  // Built through the real CLI so the test exercises what users run; the
  // cache (MOESWEEP_CACHE_DIR, set by ctest) makes every later call instant.
  const CommandResult r = run_cli("synth --model " + profile + " --scale tiny --quant " + quant);
  if (r.exit_code != 0) throw std::runtime_error("moesweep synth failed: " + r.err);
  const std::string marker = "file       ";
  const size_t at = r.out.find(marker);
  if (at == std::string::npos) throw std::runtime_error("synth printed no file line: " + r.out);
  const size_t end = r.out.find('\n', at);
  return r.out.substr(at + marker.size(), end - at - marker.size());
}

std::string slurp(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

namespace {

std::string slurp_file(const std::filesystem::path& path) {
  return slurp(path);
}

// Held for the lifetime of the object: one process at a time makes a shared run.
class ScopedFileLock {
 public:
  explicit ScopedFileLock(const std::filesystem::path& path)
      : fd_(::open(path.c_str(), O_CREAT | O_RDWR, 0644)) {
    if (fd_ < 0 || ::flock(fd_, LOCK_EX) != 0)
      throw std::runtime_error("cannot lock " + path.string());
  }
  ~ScopedFileLock() { ::close(fd_); }
  ScopedFileLock(const ScopedFileLock&) = delete;
  ScopedFileLock& operator=(const ScopedFileLock&) = delete;

 private:
  int fd_;
};

}  // namespace

SharedRun shared_cli_run(const std::string& name, const std::string& args) {
  const std::filesystem::path cli(MOESWEEP_CLI);
  const auto stamp = std::filesystem::last_write_time(cli).time_since_epoch().count();
  const std::string key = std::to_string(fnv1a64(args + "|" + std::to_string(stamp) + "|" +
                                                 std::to_string(std::filesystem::file_size(cli))));
  const std::filesystem::path root = std::filesystem::path(MOESWEEP_TEST_TMP) / "shared";
  std::filesystem::create_directories(root);
  const std::filesystem::path base = root / (name + "-" + key);
  ScopedFileLock lock(root / (name + ".lock"));
  SharedRun run;
  run.out_dir = base / "runs";
  if (!std::filesystem::exists(base / "exit_code")) {
    // Runs of an older binary or other args are stale: drop them.
    for (const auto& e : std::filesystem::directory_iterator(root))
      if (e.is_directory() && e.path().filename().string().rfind(name + "-", 0) == 0)
        std::filesystem::remove_all(e.path());
    std::filesystem::create_directories(base);
    const CommandResult r = run_cli(args + " --out-dir '" + run.out_dir.string() + "'");
    std::ofstream(base / "stdout") << r.out;
    std::ofstream(base / "stderr") << r.err;
    std::ofstream(base / "exit_code") << r.exit_code;  // written last: marks the run complete
  }
  run.cli.out = slurp_file(base / "stdout");
  run.cli.err = slurp_file(base / "stderr");
  run.cli.exit_code = std::stoi(slurp_file(base / "exit_code"));
  return run;
}

std::filesystem::path only_run_dir(const std::filesystem::path& out_dir) {
  std::vector<std::filesystem::path> dirs;
  if (std::filesystem::is_directory(out_dir))
    for (const auto& e : std::filesystem::directory_iterator(out_dir))
      if (e.is_directory()) dirs.push_back(e.path());
  EXPECT_EQ(dirs.size(), 1u) << "run directories under " << out_dir;
  return dirs.empty() ? out_dir / "missing-run-dir" : dirs.front();
}

std::string refused(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    EXPECT_EQ(e.exit_code(), 2) << e.problem();
    EXPECT_FALSE(e.expected().empty()) << e.problem();
    EXPECT_FALSE(e.fix().empty()) << e.problem();
    return e.problem() + " | expected " + e.expected();
  }
  ADD_FAILURE() << "accepted";
  return "";
}

std::vector<std::string> read_lines(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

}  // namespace moesweep::test
