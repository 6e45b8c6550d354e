#pragma once
// The perf_event backend: software events per thread everywhere, and the
// hardware events of this CPU family's profile where the kernel exposes them
// (uncore system-wide on each PMU's cpumask, core events per thread).
#include <optional>
#include <string>

#include "counters/advice.hpp"
#include "counters/counter_backend.hpp"
#include "counters/counter_profile.hpp"
#include "counters/derived_metrics.hpp"
#include "counters/event_counters.hpp"
#include "counters/sysfs_pmu.hpp"

namespace moesweep::counters {

class PerfBackend : public CounterBackend {
 public:
  // with_hardware=false: software events only (the likwid backend adds its own).
  explicit PerfBackend(const CounterOptions& options, bool with_hardware = true);

  std::string name() const override { return "perf"; }
  nlohmann::json describe() const override;
  void threads_changed(int engine_pid) override;
  std::unique_ptr<CounterSession> session(const std::string& phase,
                                          const std::string& region) override;

  // metric -> "measurable" or {"unavailable": reason}, as of now.
  nlohmann::json metric_availability() const;
  bool hardware_measurable() const;
  std::vector<std::string> advice() const;
  void set_why(std::string why) { why_ = std::move(why); }
  const CpuIdentity& cpu() const { return cpu_; }
  const std::optional<CounterProfile>& profile() const { return profile_; }

  // What a session needs: counts of both sets and the reasons for the rest.
  struct Snapshot {
    CounterSnapshot system, threads;
    unsigned generation = 0;
  };
  Snapshot read() const;
  void accumulate(const Snapshot& before, const Snapshot& after, PhaseTotals& totals) const;
  nlohmann::json derive(const PhaseTotals& totals) const;

 private:
  std::vector<MetricDef> hardware_metric_defs() const;
  std::string no_hardware_reason() const;

  CounterOptions options_;
  bool with_hardware_;
  SysfsPmus pmus_;
  CpuIdentity cpu_;
  std::optional<CounterProfile> profile_;
  std::optional<int> nodes_per_socket_;  // NPS mode on AMD; nullopt when unknown
  std::string hardware_probe_failure_;
  EventCounters system_;   // opened once: uncore PMUs do not care about threads
  EventCounters threads_;  // reopened on threads_changed()
  unsigned generation_ = 0;
  int attached_threads_ = 0;
  std::string why_ = "requested with --counters perf";
};

}  // namespace moesweep::counters
