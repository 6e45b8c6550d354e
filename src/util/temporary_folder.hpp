#pragma once
// A private folder in the temporary directory ($TMPDIR, else /tmp), owned:
// removed with everything in it when its owner ends, on every way out that
// runs destructors -- a return, an error, and Ctrl-C or SIGTERM, which the
// commands that make one turn into a clean stop (util/stop_signal.hpp) for as
// long as it lives. For the ways out that run nothing (SIGKILL, a second
// Ctrl-C), its name carries the process id, and the next folder of the same
// prefix made by this user removes those whose process is gone.
#include <filesystem>
#include <string>

namespace moesweep {

class TemporaryFolder {
 public:
  // "<tmp>/<prefix>-<pid>-XXXXXX"; UserError when the temporary directory
  // cannot hold it. `what` names its use in that message.
  TemporaryFolder(const std::string& prefix, const std::string& what);
  ~TemporaryFolder();
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Removes "<dir>/<prefix>-<pid>-*" folders of this user whose process is no
// longer running; the number removed.
int remove_abandoned_folders(const std::filesystem::path& dir, const std::string& prefix);

}  // namespace moesweep
