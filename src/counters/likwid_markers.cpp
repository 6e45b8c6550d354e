// Marker API regions for users who run `likwid-perfctr -C <cpus> -g MEM -m
// moesweep sweep ...`: likwid-perfctr programs the counters, we only say where
// each phase of each point begins and ends. likwid_markerClose() writes the
// file likwid-perfctr reads, so it must run before the process exits.
#include <cstdlib>
#include <string>

#include "counters/backends.hpp"

#ifdef MOESWEEP_HAVE_LIKWID
#include <likwid.h>
#endif

namespace moesweep::counters {

bool likwid_marker_mode() {
  const char* file = std::getenv("LIKWID_FILEPATH");
  const char* mode = std::getenv("LIKWID_MODE");
  return (file && *file) || (mode && *mode);
}

#ifdef MOESWEEP_HAVE_LIKWID
namespace {

// likwid region tags end up in a results file split on spaces: keep them tokens.
std::string region_tag(const std::string& phase, const std::string& region) {
  std::string tag = region.empty() ? phase : region;
  for (char& c : tag)
    if (c == ' ' || c == '\t' || c == '\n') c = '_';
  return tag;
}

class MarkerSession : public CounterSession {
 public:
  MarkerSession(std::unique_ptr<CounterSession> inner, std::string tag)
      : inner_(std::move(inner)), tag_(std::move(tag)) {
    likwid_markerRegisterRegion(tag_.c_str());
  }
  void start() override {
    inner_->start();
    likwid_markerStartRegion(tag_.c_str());
  }
  void stop(double wall_s, int tokens) override {
    likwid_markerStopRegion(tag_.c_str());
    inner_->stop(wall_s, tokens);
  }
  nlohmann::json result() const override { return inner_->result(); }

 private:
  std::unique_ptr<CounterSession> inner_;
  std::string tag_;
};

class MarkerBackend : public CounterBackend {
 public:
  explicit MarkerBackend(std::unique_ptr<CounterBackend> inner) : inner_(std::move(inner)) {
    likwid_markerInit();
    likwid_markerThreadInit();
  }
  ~MarkerBackend() override { likwid_markerClose(); }
  std::string name() const override { return inner_->name(); }
  nlohmann::json describe() const override {
    nlohmann::json d = inner_->describe();
    const char* file = std::getenv("LIKWID_FILEPATH");
    d["likwid_marker_regions"] = {{"enabled", true},
                                  {"file", file ? file : ""},
                                  {"region_names", "the sweep's region label per point and phase"}};
    return d;
  }
  void threads_changed(int pid) override { inner_->threads_changed(pid); }
  std::vector<std::string> worker_launcher() const override { return inner_->worker_launcher(); }
  std::unique_ptr<CounterSession> session(const std::string& phase,
                                          const std::string& region) override {
    return std::make_unique<MarkerSession>(inner_->session(phase, region),
                                           region_tag(phase, region));
  }

 private:
  std::unique_ptr<CounterBackend> inner_;
};

}  // namespace

std::unique_ptr<CounterBackend> with_likwid_markers(std::unique_ptr<CounterBackend> inner) {
  return std::make_unique<MarkerBackend>(std::move(inner));
}
#else
std::unique_ptr<CounterBackend> with_likwid_markers(std::unique_ptr<CounterBackend> inner) {
  return inner;  // built without liblikwid: nothing to mark
}
#endif

}  // namespace moesweep::counters
