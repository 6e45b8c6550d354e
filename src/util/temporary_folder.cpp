#include "util/temporary_folder.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <system_error>

#include "util/error.hpp"

namespace moesweep {
namespace fs = std::filesystem;

namespace {

constexpr int kMaxEntriesLooked = 100000;  // a temporary directory's names looked at, at most

// The pid in "<prefix>-<pid>-XXXXXX", or 0 when the name is not of that form.
pid_t pid_in(const std::string& name, const std::string& prefix) {
  const std::string head = prefix + "-";
  if (name.rfind(head, 0) != 0) return 0;
  const char* begin = name.data() + head.size();
  const char* end = name.data() + name.size();
  long pid = 0;
  const auto [after, ec] = std::from_chars(begin, end, pid);
  if (ec != std::errc() || after == begin || after == end || *after != '-' || pid <= 0) return 0;
  return static_cast<pid_t>(pid);
}

bool running(pid_t pid) {
  return ::kill(pid, 0) == 0 || errno == EPERM;
}

}  // namespace

int remove_abandoned_folders(const fs::path& dir, const std::string& prefix) {
  int removed = 0, looked = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end && looked < kMaxEntriesLooked;
       it.increment(ec), ++looked) {
    const pid_t pid = pid_in(it->path().filename().string(), prefix);
    struct stat st {};
    if (pid <= 0 || pid == ::getpid() || running(pid)) continue;
    if (::lstat(it->path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid())
      continue;  // a link, a file, or another user's: not ours to remove
    std::error_code rm;
    if (fs::remove_all(it->path(), rm) > 0 && !rm) ++removed;
  }
  return removed;
}

TemporaryFolder::TemporaryFolder(const std::string& prefix, const std::string& what) {
  std::error_code ec;
  const fs::path tmp = fs::temp_directory_path(ec);
  if (!ec) remove_abandoned_folders(tmp, prefix);
  std::string pattern = (tmp / fmt::format("{}-{}-XXXXXX", prefix, ::getpid())).string();
  if (ec || !::mkdtemp(pattern.data()))
    throw UserError(fmt::format("{}: cannot create a folder in the temporary directory {}", what,
                                ec ? "($TMPDIR)" : tmp.string()),
                    "a writable temporary directory", "set TMPDIR to a writable folder");
  path_ = pattern;
}

TemporaryFolder::~TemporaryFolder() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

}  // namespace moesweep
