#include "engine/worker_launcher.hpp"

#include <mutex>

namespace moesweep {
namespace {

std::mutex& launcher_mutex() {
  static std::mutex m;
  return m;
}

std::vector<std::string>& launcher() {
  static std::vector<std::string> prefix;
  return prefix;
}

}  // namespace

std::vector<std::string> worker_launcher() {
  std::lock_guard<std::mutex> lock(launcher_mutex());
  return launcher();
}

std::string worker_launcher_text() {
  std::string text;
  for (const std::string& arg : worker_launcher()) text += (text.empty() ? "" : " ") + arg;
  return text;
}

ScopedWorkerLauncher::ScopedWorkerLauncher(std::vector<std::string> prefix) {
  std::lock_guard<std::mutex> lock(launcher_mutex());
  previous_ = std::move(launcher());
  launcher() = std::move(prefix);
}

ScopedWorkerLauncher::~ScopedWorkerLauncher() {
  std::lock_guard<std::mutex> lock(launcher_mutex());
  launcher() = std::move(previous_);
}

}  // namespace moesweep
