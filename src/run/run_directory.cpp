#include "run/run_directory.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>

#include "results/token_file.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"

namespace moesweep {

void RunDirectory::check_name(const std::string& name) {
  if (name.size() <= kMaxNameLength) return;
  throw UserError(
      fmt::format("the run name is {} characters long", name.size()),
      fmt::format("at most {} (it becomes part of the run directory's name)", kMaxNameLength),
      "pass a shorter --name (or a shorter \"name\" in the profile)");
}

RunDirectory RunDirectory::create(const std::filesystem::path& root, const std::string& name) {
  check_name(name);
  std::string safe = name;
  for (char& c : safe)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  const std::time_t now = std::time(nullptr);
  const std::string stamp = fmt::format("{:%Y%m%d-%H%M%S}", fmt::localtime(now));
  std::error_code ec;
  std::filesystem::create_directories(root, ec);
  RunDirectory rd;
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string id = attempt == 0 ? fmt::format("{}-{}", stamp, safe)
                                        : fmt::format("{}-{}-{}", stamp, safe, attempt);
    if (std::filesystem::create_directory(root / id, ec)) {
      rd.dir_ = root / id;
      rd.run_id_ = id;
      return rd;
    }
    if (ec) break;  // not "exists already": say why instead of trying other names
  }
  throw UserError(fmt::format("cannot create a run directory under '{}'{}", root.string(),
                              ec ? ": " + ec.message() : ""),
                  "a directory this user can write",
                  "choose another --out-dir or fix its permissions");
}

namespace {
std::string lock_holder(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof(buf) - 1, 0);
  const long pid = n > 0 ? std::strtol(buf, nullptr, 10) : 0;
  return pid > 0 ? fmt::format("another moesweep (PID {})", pid) : "another moesweep";
}
}  // namespace

RunLock::RunLock(const std::filesystem::path& dir) {
  const std::string path = (dir / ".lock").string();
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    throw UserError(
        fmt::format("cannot lock run directory '{}': {}", dir.string(), std::strerror(errno)),
        "a run directory this user can write", "fix its permissions");
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const std::string holder = lock_holder(fd_);
    ::close(fd_);
    fd_ = -1;
    throw UserError(fmt::format("{} is running '{}' right now", holder, dir.string()),
                    "one sweep at a time per run directory",
                    "wait for it to finish (or stop it with Ctrl-C), then resume if points are "
                    "left");
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) < 0) {
    // The lock holds without the PID; only the other process's message is poorer.
  }
}

RunLock::~RunLock() {
  if (fd_ >= 0) ::close(fd_);  // closing drops the flock
}

RunDirectory RunDirectory::open(const std::filesystem::path& dir) {
  if (!std::filesystem::exists(dir / "meta.json")) {
    throw UserError(
        fmt::format("'{}' is not a moesweep run directory (no meta.json)", dir.string()),
        "a directory under results/runs/",
        "pass the run directory printed by the interrupted sweep");
  }
  RunDirectory rd;
  rd.dir_ = dir;
  rd.run_id_ = dir.filename().string();
  return rd;
}

RunDirectory RunDirectory::adopt(const std::filesystem::path& dir, const std::string& run_id) {
  RunDirectory rd;
  rd.dir_ = dir;
  rd.run_id_ = run_id;
  return rd;
}

void RunDirectory::write_meta(const RunMeta& meta) const {
  write_run_meta(dir_, meta);
}

RunMeta RunDirectory::read_meta() const {
  return read_run_meta(dir_);
}

const std::vector<PointFile>& point_files() {
  static const std::vector<PointFile> files = {{"records.jsonl", true, false},
                                               {"records.csv", false, false},
                                               {"samples.jsonl", true, true},
                                               {kTokenFileName, true, true}};
  return files;
}

std::vector<std::unique_ptr<RunListener>> point_file_writers(const RunDirectory& dir,
                                                             bool samples) {
  std::vector<std::unique_ptr<RunListener>> out;
  for (const PointFile& f : point_files()) {
    if (f.samples && !samples) continue;
    const std::filesystem::path path = dir.file(f.name);
    if (f.samples && f.name == std::string_view(kTokenFileName))
      out.push_back(std::make_unique<TokenLog>(path));
    else if (f.samples)
      out.push_back(std::make_unique<SampleLog>(path));
    else if (f.json_lines)
      out.push_back(std::make_unique<JsonlSink>(path));
    else
      out.push_back(std::make_unique<CsvSink>(path));
  }
  return out;
}

void SampleLog::sample(const SampleEvent& s) {
  out_.append_line(nlohmann::json({{"point", s.point},
                                   {"key", s.params->key_string()},
                                   {"phase", s.phase},
                                   {"rep", s.rep},
                                   {"seconds", s.seconds},
                                   {"tokens", s.tokens},
                                   {"tokens_per_s", s.tokens / s.seconds}})
                       .dump());
}

}  // namespace moesweep
