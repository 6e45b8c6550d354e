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
  // What a second SIGINT does: kill at once (the default), or only count, for
  // a command whose own children must be ended before it exits (engine add).
  enum class Second { kKills, kCounted };
  explicit StopOnSignal(Second second = Second::kKills);  // clears the flag, installs the handlers
  ~StopOnSignal();                                        // restores the default actions
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;

  const std::atomic<bool>& flag() const;
  // The flag, for code that takes a plain function (serve's `interrupted`).
  static bool requested();
  // SIGINT and SIGTERM received since the constructor.
  static int count();
  // The flag itself, for code that waits on a child (the engine worker): false
  // while no StopOnSignal has seen a signal.
  static const std::atomic<bool>& process_flag();
};

}  // namespace moesweep
