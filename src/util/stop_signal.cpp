#include "util/stop_signal.hpp"

#include <csignal>

namespace moesweep {
namespace {

std::atomic<bool> g_stop{false};
std::atomic<int> g_count{0};
std::atomic<bool> g_second_kills{true};

extern "C" void on_stop_signal(int) {
  g_stop.store(true);
  g_count.fetch_add(1);
  // a second Ctrl-C kills at once (a server dies with us)
  if (g_second_kills.load()) std::signal(SIGINT, SIG_DFL);
}

}  // namespace

StopOnSignal::StopOnSignal(Second second) {
  g_stop = false;
  g_count = 0;
  g_second_kills = second == Second::kKills;
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
}

StopOnSignal::~StopOnSignal() {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

const std::atomic<bool>& StopOnSignal::flag() const {
  return g_stop;
}

const std::atomic<bool>& StopOnSignal::process_flag() {
  return g_stop;
}

bool StopOnSignal::requested() {
  return g_stop.load();
}

int StopOnSignal::count() {
  return g_count.load();
}

}  // namespace moesweep
