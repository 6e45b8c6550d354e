#include "util/stop_signal.hpp"

#include <csignal>

namespace moesweep {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_stop_signal(int) {
  g_stop.store(true);
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C kills at once (a server dies with us)
}

}  // namespace

StopOnSignal::StopOnSignal() {
  g_stop = false;
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

}  // namespace moesweep
