#include "counters/perf_backend.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "counters/metric_formula.hpp"
#include "counters/perf_event_sets.hpp"

namespace moesweep::counters {
using nlohmann::json;

namespace {

class PerfSession : public CounterSession {
 public:
  explicit PerfSession(const PerfBackend& backend) : backend_(backend) {}
  void start() override { before_ = backend_.read(); }
  void stop(double wall_s, int tokens) override {
    const PerfBackend::Snapshot after = backend_.read();
    if (after.generation != before_.generation)
      throw std::logic_error("counters: threads_changed() was called inside a repetition");
    backend_.accumulate(before_, after, totals_);
    totals_.repetitions += 1;
    totals_.wall_s += wall_s;
    totals_.tokens += tokens;
  }
  json result() const override { return backend_.derive(totals_); }

 private:
  const PerfBackend& backend_;
  PerfBackend::Snapshot before_;
  PhaseTotals totals_;
};

bool permission_denied(const std::map<std::string, std::string>& reasons) {
  for (const auto& [event, reason] : reasons)
    if (reason.find("EACCES") != std::string::npos || reason.find("EPERM") != std::string::npos)
      return true;
  return false;
}

}  // namespace

PerfBackend::PerfBackend(const CounterOptions& options, bool with_hardware)
    : options_(options), with_hardware_(with_hardware), pmus_(options.sysfs_root) {
  cpu_ = read_cpu_identity(options_.cpuinfo);
  nodes_per_socket_ = numa_nodes_per_socket(options_.sysfs_root);
  if (with_hardware_) {
    const auto dir =
        options_.profile_dir.empty() ? default_counter_profile_dir() : options_.profile_dir;
    profile_ = find_counter_profile(dir, cpu_);
    hardware_probe_failure_ = hardware_pmu_probe();
    if (profile_) {
      std::string context;
      if (!hardware_probe_failure_.empty())
        context = fmt::format("; {}{}", hardware_probe_failure_,
                              cpu_.hypervisor ? " (this is a virtual machine)" : "");
      open_profile_events(system_, *profile_, pmus_, EventScope::kSystem, {}, context);
    }
  }
  threads_changed(0);
}

void PerfBackend::threads_changed(int engine_pid) {
  // Close first: an inherited counter of a thread created since the last attach
  // would otherwise count that thread twice once it is attached directly.
  threads_.clear();
  const std::vector<int> tids = process_thread_ids(engine_pid);
  attached_threads_ = static_cast<int>(tids.size());
  open_software_events(threads_, tids);
  if (profile_) {
    std::string context;
    if (!hardware_probe_failure_.empty()) context = "; " + hardware_probe_failure_;
    open_profile_events(threads_, *profile_, pmus_, EventScope::kThread, tids, context);
  }
  ++generation_;
}

std::unique_ptr<CounterSession> PerfBackend::session(const std::string&, const std::string&) {
  return std::make_unique<PerfSession>(*this);
}

PerfBackend::Snapshot PerfBackend::read() const {
  return {system_.read(), threads_.read(), generation_};
}

void PerfBackend::accumulate(const Snapshot& before, const Snapshot& after,
                             PhaseTotals& totals) const {
  std::set<std::string> never_ran;
  for (const auto& [event, delta] : system_.deltas(before.system, after.system, never_ran))
    totals.events[event] += delta;
  for (const auto& [event, delta] : threads_.deltas(before.threads, after.threads, never_ran))
    totals.events[event] += delta;
  for (const std::string& event : never_ran)
    totals.unavailable.emplace(event,
                               "the kernel never scheduled this counter in a repetition "
                               "(more events than hardware counters)");
  for (const auto* set : {&system_, &threads_})
    for (const auto& [event, reason] : set->unavailable())
      totals.unavailable.emplace(event, reason);
}

std::string PerfBackend::no_hardware_reason() const {
  if (!with_hardware_) return "hardware counters come from likwid in this backend";
  return fmt::format(
      "no counter profile in profiles/counters/ matches this CPU ({} family {} model {})",
      cpu_.vendor, cpu_.family, cpu_.model);
}

std::vector<MetricDef> PerfBackend::hardware_metric_defs() const {
  std::vector<MetricDef> defs;
  for (const std::string& name : hardware_metric_names()) {
    MetricDef def;
    def.name = name;
    def.unavailable = no_hardware_reason();
    if (profile_) {
      def.unavailable = fmt::format("profile {} does not define {}", profile_->name, name);
      for (const MetricDef& m : profile_->metrics)
        if (m.name == name) def = m;
      if (def.exact_only_in_nps1 && def.unavailable.empty() && nodes_per_socket_ > 1)
        def.unavailable = fmt::format(
            "{}'s events count DRAM traffic exactly only in NPS1 mode (one NUMA node per "
            "socket); this machine has {} NUMA nodes per socket (NPS{}): select NPS1 in the "
            "BIOS to measure it",
            profile_->name, *nodes_per_socket_, *nodes_per_socket_);
    }
    defs.push_back(def);
  }
  return defs;
}

json PerfBackend::derive(const PhaseTotals& totals) const {
  json out = derive_metrics(software_metric_defs(), totals);
  mark_sources(out, software_metric_defs(), "software");
  if (with_hardware_) {
    out.update(derive_metrics(hardware_metric_defs(), totals));
    mark_sources(out, hardware_metric_defs(), "hardware");
  }
  return out;
}

json PerfBackend::metric_availability() const {
  std::vector<MetricDef> defs = software_metric_defs();
  if (with_hardware_)
    for (const MetricDef& m : hardware_metric_defs()) defs.push_back(m);
  json out = json::object();
  for (const MetricDef& def : defs) {
    std::string reason = def.unavailable;
    if (reason.empty()) {
      for (const std::string& id : formula_identifiers(def.formula)) {
        if (id == "time" || id == "tokens" || id == "repetitions") continue;
        for (const auto* set : {&system_, &threads_})
          if (auto it = set->unavailable().find(id);
              it != set->unavailable().end() && reason.empty())
            reason = fmt::format("{}: {}", id, it->second);
        if (reason.empty() && !system_.counting(id) && !threads_.counting(id))
          reason = fmt::format("{} is not counted", id);
        if (!reason.empty()) break;
      }
    }
    out[def.name] = reason.empty() ? json("measurable") : json{{"unavailable", reason}};
  }
  return out;
}

bool PerfBackend::hardware_measurable() const {
  const json availability = metric_availability();
  for (const std::string& name : hardware_metric_names())
    if (availability.contains(name) && availability[name].is_string()) return true;
  return false;
}

std::vector<std::string> PerfBackend::advice() const {
  AdviceFacts facts;
  facts.cpu = cpu_;
  facts.profile_name = profile_ ? profile_->name : "";
  facts.hardware_probe_failure = hardware_probe_failure_;
  for (const auto& [event, reason] : system_.unavailable())
    if (reason.find("not found in") != std::string::npos) facts.uncore_pmus_missing = true;
  facts.permission_denied =
      permission_denied(system_.unavailable()) || permission_denied(threads_.unavailable());
  facts.paranoid = read_perf_event_paranoid();
  facts.cap_perfmon = has_perfmon_capability();
  if (!with_hardware_) return {};
  if (pmus_.root() != "/sys") {
    // A recorded machine: what its tree and cpuinfo say, not this kernel's facts.
    facts.hardware_probe_failure.clear();
    facts.permission_denied = false;
    facts.paranoid.reset();
    std::vector<std::string> lines = perf_advice(facts);
    lines.insert(lines.begin(),
                 fmt::format("{} is a recorded sysfs copy: its events are encoded and shown, "
                             "never opened here; run moesweep on that machine to count them",
                             pmus_.root().string()));
    return lines;
  }
  if (hardware_measurable() && !facts.permission_denied) return {};
  return perf_advice(facts);
}

json PerfBackend::describe() const {
  json d;
  d["backend"] = name();
  d["why"] = why_;
  d["cpu"] = {{"vendor", cpu_.vendor},
              {"family", cpu_.family},
              {"model", cpu_.model},
              {"model_name", cpu_.model_name},
              {"virtual_machine", cpu_.hypervisor}};
  d["profile"] = profile_ ? json(profile_->name) : json(nullptr);
  d["numa_nodes_per_socket"] = nodes_per_socket_ ? json(*nodes_per_socket_) : json(nullptr);
  const auto paranoid = read_perf_event_paranoid();
  d["perf_event_paranoid"] = paranoid ? json(*paranoid) : json(nullptr);
  d["cap_perfmon"] = has_perfmon_capability();
  d["pmus"] = pmus_.names();
  d["hardware_pmu"] = hardware_probe_failure_.empty()
                          ? json("present")
                          : json{{"unavailable", hardware_probe_failure_}};
  d["metrics"] = metric_availability();
  d["threads_attached"] = attached_threads_;
  d["advice"] = advice();
  if (profile_) d["notes"] = profile_->notes;
  return d;
}

}  // namespace moesweep::counters
