#pragma once
// liblikwid prints its diagnostics ("Unsupported AMD Zen Processor") on fd 2
// and runs shell commands during init. Capturing fd 2 keeps that out of our
// tables and turns it into the reason we report; stdout is flushed first so
// buffered output is not duplicated by the child processes.
#include <cstdio>
#include <string>

namespace moesweep::counters {

class StderrCapture {
 public:
  StderrCapture();
  ~StderrCapture();
  StderrCapture(const StderrCapture&) = delete;
  StderrCapture& operator=(const StderrCapture&) = delete;
  // Restores fd 2 and returns what was written meanwhile (once).
  std::string finish();

 private:
  int saved_fd_ = -1;
  std::FILE* sink_ = nullptr;
};

}  // namespace moesweep::counters
