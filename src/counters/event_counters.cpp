#include "counters/event_counters.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>

namespace moesweep::counters {

void EventCounters::add(const std::string& event, PerfFd fd) {
  counters_.push_back({event, std::move(fd)});
}

void EventCounters::mark_unavailable(const std::string& event, const std::string& reason) {
  unavailable_.emplace(event, reason);
}

bool EventCounters::counting(const std::string& event) const {
  return !unavailable_.count(event) &&
         std::any_of(counters_.begin(), counters_.end(),
                     [&](const Counter& c) { return c.event == event; });
}

void EventCounters::clear() {
  counters_.clear();
  unavailable_.clear();
}

CounterSnapshot EventCounters::read() const {
  CounterSnapshot snap;
  snap.reserve(counters_.size());
  for (const Counter& c : counters_) snap.push_back(c.fd.read());
  return snap;
}

std::map<std::string, double> EventCounters::deltas(const CounterSnapshot& before,
                                                    const CounterSnapshot& after,
                                                    std::set<std::string>& never_ran) const {
  std::map<std::string, double> out;
  const std::size_t n = std::min({before.size(), after.size(), counters_.size()});
  for (std::size_t i = 0; i < n; ++i) {
    const std::string& event = counters_[i].event;
    if (const auto d = scaled_delta(before[i], after[i]))
      out[event] += *d;
    else
      never_ran.insert(event);
  }
  for (const std::string& event : never_ran) out.erase(event);
  return out;
}

std::vector<int> process_thread_ids(int pid) {
  std::vector<int> tids;
  std::error_code ec;
  const std::string dir = pid > 0 ? "/proc/" + std::to_string(pid) + "/task" : "/proc/self/task";
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    try {
      tids.push_back(std::stoi(entry.path().filename().string()));
    } catch (const std::exception&) {
    }
  }
  std::sort(tids.begin(), tids.end());
  if (tids.empty() && pid <= 0) tids.push_back(static_cast<int>(::gettid()));
  return tids;
}

ThreadAttachResult open_on_threads(perf_event_attr attr, const std::vector<int>& tids) {
  ThreadAttachResult result;
  attr.inherit = 1;
  for (const int tid : tids) {
    auto opened = open_perf_event(attr, tid, -1);
    if (auto* err = std::get_if<PerfOpenError>(&opened);
        err && (err->error == EACCES || err->error == EPERM) && !attr.exclude_kernel) {
      attr.exclude_kernel = 1;
      attr.exclude_hv = 1;
      result.user_space_only = true;
      opened = open_perf_event(attr, tid, -1);
    }
    if (auto* fd = std::get_if<PerfFd>(&opened)) {
      result.fds.push_back(std::move(*fd));
    } else if (std::get<PerfOpenError>(opened).error != ESRCH) {  // ESRCH: the thread just ended
      if (!result.error) result.error = std::get<PerfOpenError>(opened);
    }
  }
  if (!result.fds.empty()) result.error.reset();
  return result;
}

}  // namespace moesweep::counters
