#include "serve/page_cache.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cstring>
#include <regex>

namespace moesweep {

std::vector<std::filesystem::path> model_parts(const std::filesystem::path& model) {
  static const std::regex split(R"((.*)-00001-of-([0-9]{5})\.gguf)");
  std::smatch m;
  const std::string s = model.string();
  if (!std::regex_match(s, m, split)) return {model};
  std::vector<std::filesystem::path> parts;
  const int n = std::stoi(m[2]);
  for (int i = 1; i <= n; ++i)
    parts.emplace_back(fmt::format("{}-{:05}-of-{:05}.gguf", m[1].str(), i, n));
  return parts;
}

double page_cache_fraction(const std::vector<std::filesystem::path>& parts) {
  const long page = ::sysconf(_SC_PAGESIZE);
  size_t resident = 0, total = 0;
  for (const auto& p : parts) {
    const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    const off_t size = ::lseek(fd, 0, SEEK_END);
    void* map = size > 0 ? ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
    ::close(fd);
    if (map == MAP_FAILED) return -1;
    std::vector<unsigned char> vec((size + page - 1) / page);
    const bool ok = ::mincore(map, size, vec.data()) == 0;
    ::munmap(map, size);
    if (!ok) return -1;
    for (unsigned char v : vec) resident += v & 1;
    total += vec.size();
  }
  return total ? static_cast<double>(resident) / total : 0;
}

std::string drop_page_cache(const std::vector<std::filesystem::path>& parts) {
  for (const auto& p : parts) {
    struct statfs fs {};
    if (::statfs(p.c_str(), &fs) == 0 && fs.f_type == TMPFS_MAGIC)
      return fmt::format("'{}' is on tmpfs: its pages are the file, nothing to drop", p.string());
    const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return fmt::format("cannot open '{}': {}", p.string(), std::strerror(errno));
    ::fdatasync(fd);  // dirty pages are not dropped
    const int rc = ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
    if (rc != 0) return fmt::format("posix_fadvise on '{}': {}", p.string(), std::strerror(rc));
  }
  const double left = page_cache_fraction(parts);
  if (left > 0.05)
    return fmt::format(
        "{:.0f}% of the model stayed in the page cache (another process maps or "
        "locks it, e.g. a server with --mlock)",
        100 * left);
  return "";
}

}  // namespace moesweep
