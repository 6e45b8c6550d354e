#include "hw/process_memory.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace moesweep {
namespace {

// /proc files are the kernel's, but a recorded one in a test is any file:
// stop after this many lines (smaps of a process with a million mappings is
// far beyond anything the engine makes) and skip longer lines.
constexpr size_t kMaxLines = 4'000'000;
constexpr size_t kMaxLineLength = 8192;

std::filesystem::path pid_dir(pid_t pid, const std::filesystem::path& proc) {
  return proc / std::to_string(pid);
}

std::string unreadable(const std::filesystem::path& path) {
  return fmt::format("{} is not readable ({})", path.string(), std::strerror(errno));
}

// "Key:   1234 kB" -> bytes; nullopt for another key or a malformed line.
std::optional<uint64_t> kib_field(const std::string& line, const char* key) {
  const size_t n = std::strlen(key);
  if (line.compare(0, n, key) != 0 || line.size() <= n || line[n] != ':') return std::nullopt;
  std::istringstream in(line.substr(n + 1));
  uint64_t kib = 0;
  std::string unit;
  if (!(in >> kib >> unit) || unit != "kB") return std::nullopt;
  return kib * 1024;
}

// Calls `on_line` for each line of `path` (bounded); false when unreadable.
template <typename F>
bool for_each_line(const std::filesystem::path& path, F&& on_line) {
  std::ifstream in(path);
  if (!in) return false;
  size_t count = 0;
  for (std::string line; count < kMaxLines && std::getline(in, line); ++count)
    if (line.size() <= kMaxLineLength) on_line(line);
  return true;
}

MemoryReading first_field(const std::filesystem::path& path, const char* key) {
  MemoryReading r;
  const bool readable = for_each_line(path, [&](const std::string& line) {
    if (!r.bytes) r.bytes = kib_field(line, key);
  });
  if (!readable)
    r.unavailable = unreadable(path);
  else if (!r.bytes)
    r.unavailable = fmt::format("{} has no {} line", path.string(), key);
  return r;
}

// The path of an smaps mapping header ("start-end perms offset dev inode
// path"), "" for anonymous mappings and for field lines.
std::string mapping_path(const std::string& line) {
  std::istringstream in(line);
  std::string range, perms, offset, dev, inode;
  if (!(in >> range >> perms >> offset >> dev >> inode)) return "";
  if (range.find('-') == std::string::npos || range.back() == ':') return "";
  std::string rest;
  std::getline(in, rest);
  const size_t start = rest.find_first_not_of(' ');
  return start == std::string::npos ? "" : rest.substr(start);
}

bool is_mapping_header(const std::string& line) {
  const size_t space = line.find(' ');
  const std::string first = line.substr(0, space);
  return first.find('-') != std::string::npos && first.back() != ':';
}

}  // namespace

ProcessStatus read_process_status(pid_t pid, const std::filesystem::path& proc) {
  const std::filesystem::path path = pid_dir(pid, proc) / "status";
  return {first_field(path, "VmHWM"), first_field(path, "VmRSS")};
}

MemoryReading read_smaps_rollup_rss(pid_t pid, const std::filesystem::path& proc) {
  return first_field(pid_dir(pid, proc) / "smaps_rollup", "Rss");
}

std::optional<FileMapping> read_file_mapping(pid_t pid, const std::filesystem::path& file,
                                             std::string* why, const std::filesystem::path& proc) {
  std::error_code ec;
  const std::string wanted = std::filesystem::weakly_canonical(file, ec).string();
  const std::filesystem::path path = pid_dir(pid, proc) / "smaps";
  FileMapping m;
  bool inside = false;  // the current mapping is the file's
  const bool readable = for_each_line(path, [&](const std::string& line) {
    if (is_mapping_header(line)) {
      inside = !wanted.empty() && mapping_path(line) == wanted;
      m.mappings += inside;
      return;
    }
    if (!inside) return;
    if (auto size = kib_field(line, "Size")) m.mapped_bytes += *size;
    if (auto rss = kib_field(line, "Rss")) m.resident_bytes += *rss;
  });
  if (!readable) {
    if (why) *why = unreadable(path);
    return std::nullopt;
  }
  return m;
}

MemoryReading read_mem_available(const std::filesystem::path& meminfo) {
  return first_field(meminfo, "MemAvailable");
}

bool reset_peak_rss(pid_t pid, std::string* why, const std::filesystem::path& proc) {
  const std::filesystem::path path = pid_dir(pid, proc) / "clear_refs";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);  // never created: no O_CREAT
  const bool written = fd >= 0 && ::write(fd, "5", 1) == 1;
  const int error = errno;
  if (fd >= 0) ::close(fd);
  if (written) return true;
  if (why)
    *why =
        fmt::format("cannot reset the peak through {} ({})", path.string(), std::strerror(error));
  return false;
}

}  // namespace moesweep
