// --counters none: no counters at all, so a sweep measures the engine alone
// (the baseline of scripts/bench/counters-overhead).
#include "counters/backends.hpp"

namespace moesweep::counters {
namespace {

class NoneSession : public CounterSession {
 public:
  void start() override {}
  void stop(double, int) override {}
  nlohmann::json result() const override { return nlohmann::json::object(); }
};

class NoneBackend : public CounterBackend {
 public:
  std::string name() const override { return "none"; }
  nlohmann::json describe() const override {
    return {{"backend", "none"}, {"why", "counters disabled (--counters none)"}};
  }
  void threads_changed(int) override {}
  std::unique_ptr<CounterSession> session(const std::string&, const std::string&) override {
    return std::make_unique<NoneSession>();
  }
};

}  // namespace

std::unique_ptr<CounterBackend> make_none_backend() {
  return std::make_unique<NoneBackend>();
}

}  // namespace moesweep::counters
