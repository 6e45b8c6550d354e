#pragma once
// The likwid backend: likwid's perfmon C API in-process (groups L3CACHE and
// MEM, measured on all hardware threads), plus the perf_event software events
// every backend reports. Debian's liblikwid 5.2.2 knows no Zen 4 or Zen 5; then
// perfmon_init fails and every hardware metric says so, without crashing.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "counters/counter_backend.hpp"
#include "counters/likwid_groups.hpp"
#include "counters/perf_backend.hpp"

namespace moesweep::counters {

struct LikwidGroup {
  LikwidGroupDef def;  // from the CPU's profile: exact event names and formulas
  int id = -1;         // from perfmon_addEventSet
};

class LikwidBackend : public CounterBackend {
 public:
  explicit LikwidBackend(const CounterOptions& options);
  ~LikwidBackend() override;

  std::string name() const override { return "likwid"; }
  nlohmann::json describe() const override;
  void threads_changed(int pid) override { software_.threads_changed(pid); }
  std::unique_ptr<CounterSession> session(const std::string& phase,
                                          const std::string& region) override;

  // perfmon initialised and at least one group added: hardware metrics can come.
  bool usable() const { return unavailable_reason_.empty(); }
  const std::string& unavailable_reason() const { return unavailable_reason_; }
  std::vector<std::string> advice() const;
  void set_why(std::string why) { why_ = std::move(why); }
  const PerfBackend& software() const { return software_; }
  const std::vector<LikwidGroup>& groups() const { return groups_; }
  // Why `metric` comes from no programmed group ("" when one gives it).
  std::string metric_unavailable(const std::string& metric) const;

 private:
  void init_perfmon();  // with liblikwid only

  PerfBackend software_;
  std::string version_;             // of the liblikwid actually loaded, e.g. "5.2"
  std::string likwid_min_version_;  // from this CPU's counter profile
  std::optional<CounterProfile> profile_;
  LikwidGroupPlan plan_;                               // groups this likwid version has
  std::map<std::string, std::string> group_failures_;  // metric -> perfmon_addEventSet failure
  std::string unavailable_reason_;
  std::string init_messages_;  // what liblikwid printed on stderr during init
  std::vector<LikwidGroup> groups_;
  bool perfmon_initialized_ = false;
  std::string why_ = "requested with --counters likwid";
};

// The version of the liblikwid this process loaded ("5.2"), "" when not linked.
std::string loaded_likwid_version();

}  // namespace moesweep::counters
