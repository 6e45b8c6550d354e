#pragma once
// PointWatch: what runs and is read around one point's timed phases besides
// the engine's own timing (issue 23): the point's planned co-tenant (started
// here, stopped in finish() or by the destructor on every other way out),
// the noise probe (steal, and other processes' CPU time on the point's CPUs,
// less the engine's own process time: the engine's PID is a parameter) and
// each phase's package energy (RAPL, where readable).
#include <sys/types.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hw/noise_probe.hpp"
#include "hw/rapl.hpp"
#include "results/record.hpp"

namespace moesweep {

class CotenantProcess;

class PointWatch {
 public:
  // cotenant_cpus: --cotenant-cpus ("" = the CPUs the point's mask leaves free);
  // stop: the run's stop flag, which ends a co-tenant's start (WorkerInterrupted).
  PointWatch(const PointParams& point, const std::string& cotenant_cpus, pid_t engine_pid,
             const std::atomic<bool>& stop);
  ~PointWatch();
  PointWatch(const PointWatch&) = delete;
  PointWatch& operator=(const PointWatch&) = delete;

  // Around each timed run of a phase ("pp" or "tg"), outside its timer.
  void phase_begin(const std::string& phase);
  void phase_end(const std::string& phase);
  // Stops the co-tenant; writes the noise, the co-tenant's facts and each
  // phase's energy (into its counters) into `rec`. Call once, right after
  // the last timed phase.
  void finish(Record& rec);

 private:
  PhaseEnergy& energy(const std::string& phase);
  std::unique_ptr<CotenantProcess> cotenant_;
  std::optional<NoiseProbe> noise_;
  RaplMeter rapl_;
  PhaseEnergy pp_energy_, tg_energy_;
};

}  // namespace moesweep
