#pragma once
// The one Ctrl-C path of every command that measures (sweep, l3-run,
// serve-bench): while a StopOnSignal lives, SIGINT and SIGTERM only set a
// flag, so the run ends its point or request, marks itself interrupted and
// says how to continue; a second Ctrl-C kills at once (the default action).
// The flag is process-wide (a signal handler can reach nothing else): one
// StopOnSignal at a time.
#include <atomic>

namespace moesweep {

class StopOnSignal {
 public:
  StopOnSignal();   // clears the flag and installs the handlers
  ~StopOnSignal();  // restores the default actions
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;

  const std::atomic<bool>& flag() const;
  // The flag, for code that takes a plain function (serve's `interrupted`).
  static bool requested();
  // The flag itself, for code that waits on a child (the engine worker): false
  // while no StopOnSignal has seen a signal.
  static const std::atomic<bool>& process_flag();
};

}  // namespace moesweep
