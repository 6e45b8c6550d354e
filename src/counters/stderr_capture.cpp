#include "counters/stderr_capture.hpp"

#include <unistd.h>

namespace moesweep::counters {

StderrCapture::StderrCapture() {
  std::fflush(stdout);
  std::fflush(stderr);
  sink_ = std::tmpfile();
  if (!sink_) return;
  saved_fd_ = ::dup(2);
  if (saved_fd_ < 0 || ::dup2(::fileno(sink_), 2) < 0) {
    std::fclose(sink_);
    sink_ = nullptr;
  }
}

StderrCapture::~StderrCapture() {
  finish();
}

std::string StderrCapture::finish() {
  if (!sink_) return {};
  std::fflush(stderr);
  ::dup2(saved_fd_, 2);
  ::close(saved_fd_);
  std::string text;
  std::rewind(sink_);
  char buf[512];
  while (const std::size_t n = std::fread(buf, 1, sizeof buf, sink_)) text.append(buf, n);
  std::fclose(sink_);
  sink_ = nullptr;
  return text;
}

}  // namespace moesweep::counters
