#pragma once
// Who builds an engine: `engine add` claims <registry>/<name>/ and holds
// <registry>/<name>/.add.lock (flock) for the whole add. The steps' processes
// inherit the lock, so it stays held while any of them lives (a moesweep
// killed with SIGKILL leaves its build running: that add is still in
// progress); a folder without engine.json whose lock nobody holds is what an
// interrupted add left, and the next add of the name takes it over.
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

namespace moesweep {

class AddLock {
 public:
  explicit AddLock(const std::filesystem::path& dir);  // creates the lock file when missing
  ~AddLock();
  AddLock(const AddLock&) = delete;
  AddLock& operator=(const AddLock&) = delete;
  bool held() const { return held_; }

 private:
  int fd_ = -1;
  bool held_ = false;
};

// Claims the engine's registry folder and locks it. UserError (exit 2) when
// the registry is unusable, the name is registered, the folder is no engine's
// or another add of it runs; the folder an interrupted add left is emptied
// (but its lock) and taken over, said through `progress`.
std::unique_ptr<AddLock> claim_engine_dir(const std::filesystem::path& registry,
                                          const std::string& name,
                                          const std::function<void(const std::string&)>& progress);

// Whether another process holds `dir`'s add lock.
bool add_in_progress(const std::filesystem::path& dir);

}  // namespace moesweep
