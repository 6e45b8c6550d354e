#include "engine/engine_claim.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include "engine/engine_registry.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace fs = std::filesystem;

AddLock::AddLock(const fs::path& dir) {
  fd_ = ::open((dir / ".add.lock").c_str(), O_CREAT | O_RDWR, 0644);
  held_ = fd_ >= 0 && ::flock(fd_, LOCK_EX | LOCK_NB) == 0;
}

AddLock::~AddLock() {
  if (fd_ >= 0) ::close(fd_);
}

namespace {

// Whether `dir` (no engine.json in it) is what an add of ours left (its lock
// file or log), or an empty folder (another add that has just made it).
bool left_by_an_add(const fs::path& dir) {
  std::error_code ec;
  return fs::exists(dir / ".add.lock", ec) || fs::exists(dir / "add.log", ec) ||
         fs::is_empty(dir, ec);
}

UserError name_taken(const fs::path& dir, const std::string& why, const std::string& fix) {
  return UserError(fmt::format("engine add: {} {}", dir.string(), why), "a new engine name", fix);
}

}  // namespace

std::unique_ptr<AddLock> claim_engine_dir(const fs::path& registry, const std::string& name,
                                          const std::function<void(const std::string&)>& progress) {
  check_engine_registry(registry, true);
  const fs::path dir = registry / name;
  std::error_code ec;
  const bool made = fs::create_directory(dir, ec);
  if (ec && ec != std::errc::file_exists)
    throw name_taken(dir, "cannot be made: " + ec.message(), "check the registry");
  const std::string remove = fmt::format("moesweep engine remove {}", name);
  if (!made && fs::is_regular_file(dir / "engine.json", ec))
    throw name_taken(dir, "is registered already",
                     fmt::format("pick another name, or run: {}", remove));
  if (!made && !fs::is_directory(fs::symlink_status(dir, ec)))
    throw name_taken(dir, "exists and is not a folder",
                     fmt::format("pick another name, or remove {}", dir.string()));
  if (!made && !left_by_an_add(dir))
    throw name_taken(dir, "exists and is no engine (no engine.json)",
                     fmt::format("pick another name, or run: {}", remove));
  auto lock = std::make_unique<AddLock>(dir);
  if (!lock->held())
    throw name_taken(dir, "is being added by another moesweep (its .add.lock is held)",
                     "wait for that add to end, or stop it");
  if (!made) {
    progress(fmt::format("removing what an interrupted add left in {}", dir.string()));
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec))
      if (e.path().filename() != ".add.lock") fs::remove_all(e.path(), ec);
  }
  return lock;
}

bool add_in_progress(const fs::path& dir) {
  std::error_code ec;
  return fs::exists(dir / ".add.lock", ec) && !AddLock(dir).held();
}

}  // namespace moesweep
