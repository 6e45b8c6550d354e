#include "counters/likwid_backend.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>

#include "counters/advice.hpp"
#include "counters/likwid_probe.hpp"
#include "counters/stderr_capture.hpp"

#ifdef MOESWEEP_HAVE_LIKWID
#include <dlfcn.h>
#include <likwid.h>

#include <climits>
#include <cstdlib>
#endif

namespace moesweep::counters {
using nlohmann::json;

namespace {

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
  return line;
}

#ifdef MOESWEEP_HAVE_LIKWID
class LikwidSession : public CounterSession {
 public:
  explicit LikwidSession(const LikwidBackend& backend) : backend_(backend) {}

  void start() override {
    const auto& groups = backend_.groups();
    // Groups cannot run together; alternate them over the repetitions.
    group_ = rep_ % static_cast<int>(groups.size());
    setup_ok_ = perfmon_setupCounters(groups[group_].id) == 0 && perfmon_startCounters() == 0;
    before_ = backend_.software().read();
  }

  void stop(double wall_s, int tokens) override {
    const PerfBackend::Snapshot after = backend_.software().read();
    backend_.software().accumulate(before_, after, software_);
    software_.repetitions += 1;
    software_.wall_s += wall_s;
    software_.tokens += tokens;
    ++rep_;
    if (!setup_ok_) return;
    perfmon_stopCounters();
    const LikwidGroup& group = backend_.groups()[group_];
    LikwidGroupTotals& g = groups_[group.def.name];
    g.repetitions += 1;
    g.wall_s += wall_s;
    g.tokens += tokens;
    // Same-named events are summed: one counter per UMC channel or L3 segment,
    // uncore counts reported on one thread per socket or L3 (the others read 0).
    const int threads = perfmon_getNumberOfThreads();
    for (int e = 0; e < perfmon_getNumberOfEvents(group.id); ++e)
      for (int t = 0; t < threads; ++t)
        g.events[perfmon_getEventName(group.id, e)] += perfmon_getResult(group.id, e, t);
  }

  json result() const override {
    json out = backend_.software().derive(software_);
    for (const std::string& name : hardware_metric_names())
      out[name] = {{"unavailable", backend_.metric_unavailable(name)}};
    const auto& groups = backend_.groups();
    for (const LikwidGroup& group : groups) {
      const auto it = groups_.find(group.def.name);
      if (it == groups_.end() || it->second.repetitions == 0) {
        for (const MetricDef& m : group.def.metrics)
          out[m.name] = {{"unavailable",
                          fmt::format("no repetition of this phase ran likwid group {} (likwid "
                                      "runs one group at a time, alternating {} groups over the "
                                      "repetitions: use at least {} repetitions)",
                                      group.def.name, groups.size(), groups.size())}};
        continue;
      }
      out.update(derive_likwid_group(group.def, it->second));
    }
    mark_sources(out, hardware_metric_names(), "hardware");
    return out;
  }

 private:
  const LikwidBackend& backend_;
  PerfBackend::Snapshot before_;
  PhaseTotals software_;
  std::map<std::string, LikwidGroupTotals> groups_;
  int rep_ = 0, group_ = 0;
  bool setup_ok_ = false;
};
#endif

class SoftwareOnlySession : public CounterSession {
 public:
  SoftwareOnlySession(const PerfBackend& software, std::string reason)
      : software_(software), reason_(std::move(reason)) {}
  void start() override { before_ = software_.read(); }
  void stop(double wall_s, int tokens) override {
    software_.accumulate(before_, software_.read(), totals_);
    totals_.repetitions += 1;
    totals_.wall_s += wall_s;
    totals_.tokens += tokens;
  }
  json result() const override {
    json out = software_.derive(totals_);
    out.update(all_unavailable(hardware_metric_names(), reason_));
    return out;
  }

 private:
  const PerfBackend& software_;
  std::string reason_;
  PerfBackend::Snapshot before_;
  PhaseTotals totals_;
};

}  // namespace

std::string loaded_likwid_version() {
#ifdef MOESWEEP_HAVE_LIKWID
  // The header's LIKWID_VERSION is an unexpanded template in Debian's package;
  // the loaded library's file name (liblikwid.so.5.2) is the reliable source.
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&perfmon_init), &info) || !info.dli_fname) return "";
  char resolved[PATH_MAX];
  if (!realpath(info.dli_fname, resolved)) return "";
  const std::string file = resolved;
  const auto so = file.rfind(".so.");
  return so == std::string::npos ? "" : file.substr(so + 4);
#else
  return "";
#endif
}

LikwidBackend::LikwidBackend(const CounterOptions& options)
    : software_(options, /*with_hardware=*/false) {
  version_ = loaded_likwid_version();
  const auto dir =
      options.profile_dir.empty() ? default_counter_profile_dir() : options.profile_dir;
  profile_ = find_counter_profile(dir, software_.cpu());
  if (profile_) {
    likwid_min_version_ = profile_->likwid_min_version;
    plan_ = plan_likwid_groups(*profile_, version_);
  }
#ifdef MOESWEEP_HAVE_LIKWID
  const CpuIdentity& cpu = software_.cpu();
  const char* force = std::getenv("MOESWEEP_LIKWID_FORCE_PROBE");
  const bool forced = force && *force == '1';
  if (!version_.empty() && !likwid_min_version_.empty() &&
      compare_versions(version_, likwid_min_version_) < 0 && !forced) {
    unavailable_reason_ = fmt::format(
        "liblikwid {} does not support {} (family {} model {}): likwid >= {} does; perfmon_init "
        "not attempted (this liblikwid exits the process on CPUs it does not know)",
        version_, cpu.model_name, cpu.family, cpu.model, likwid_min_version_);
    return;
  }
  // Without a profile there are no exact event names to read: nothing to count.
  const std::string no_profile = fmt::format(
      "no counter profile in profiles/counters/ matches this CPU ({} family {} model {}), so "
      "there are no exact likwid event names to read",
      cpu.vendor, cpu.family, cpu.model);
  if (!profile_ && !forced) {
    unavailable_reason_ = no_profile;
    return;
  }
  std::vector<std::string> wanted;
  for (const LikwidGroupDef& g : plan_.groups) wanted.push_back(g.name);
  if (profile_ && wanted.empty()) {
    unavailable_reason_ = fmt::format("profile {} gives likwid no group to program here ({})",
                                      profile_->name, plan_.unavailable.begin()->second);
    return;
  }
  // Ask a child first: a liblikwid that cannot count here may exit() instead of failing.
  const LikwidProbeResult probe = probe_likwid_in_child(wanted, std::chrono::seconds(20));
  init_messages_ = probe.messages;
  if (!probe.failure.empty()) {
    unavailable_reason_ = probe.failure;
    if (!version_.empty()) unavailable_reason_ += fmt::format(" (liblikwid {})", version_);
    return;
  }
  if (!profile_) {
    unavailable_reason_ = no_profile;
    return;
  }
  init_perfmon();
#else
  unavailable_reason_ =
      "moesweep was built without liblikwid (install liblikwid-dev and reconfigure)";
#endif
}

#ifdef MOESWEEP_HAVE_LIKWID
// perfmon_init on every hardware thread, then the planned groups; each group
// likwid does not have for this CPU leaves its metrics unavailable with why.
void LikwidBackend::init_perfmon() {
  StderrCapture capture;
  topology_init();
  const CpuTopology_t topo = get_cpuTopology();
  std::vector<int> cpus;
  for (uint32_t i = 0; i < topo->numHWThreads; ++i)
    cpus.push_back(static_cast<int>(topo->threadPool[i].apicId));
  const int rc = perfmon_init(static_cast<int>(cpus.size()), cpus.data());
  if (rc < 0) {
    init_messages_ = capture.finish();
    unavailable_reason_ =
        fmt::format("likwid perfmon_init failed ({}){}{}", rc, init_messages_.empty() ? "" : ": ",
                    first_line(init_messages_));
    return;
  }
  perfmon_initialized_ = true;
  std::string failures;
  for (const LikwidGroupDef& group : plan_.groups) {
    const int id = perfmon_addEventSet(group.name.c_str());
    if (id >= 0) {
      groups_.push_back({group, id});
      continue;
    }
    failures += fmt::format("{}{} ({})", failures.empty() ? "" : ", ", group.name, id);
    for (const MetricDef& m : group.metrics)
      group_failures_[m.name] = fmt::format(
          "likwid has no group {} for this CPU: perfmon_addEventSet failed ({})", group.name, id);
  }
  init_messages_ = capture.finish();
  if (groups_.empty())
    unavailable_reason_ = fmt::format(
        "likwid has none of the groups profile {} names for this CPU: perfmon_addEventSet failed "
        "for {}",
        profile_->name, failures);
}
#endif

std::string LikwidBackend::metric_unavailable(const std::string& metric) const {
  if (!usable()) return unavailable_reason_;
  for (const LikwidGroup& g : groups_)
    for (const MetricDef& m : g.def.metrics)
      if (m.name == metric) return "";
  if (auto it = group_failures_.find(metric); it != group_failures_.end()) return it->second;
  if (auto it = plan_.unavailable.find(metric); it != plan_.unavailable.end()) return it->second;
  return "no likwid group programmed here measures it";
}

LikwidBackend::~LikwidBackend() {
#ifdef MOESWEEP_HAVE_LIKWID
  if (perfmon_initialized_) {
    StderrCapture quiet;
    perfmon_finalize();
  }
#endif
}

std::unique_ptr<CounterSession> LikwidBackend::session(const std::string&, const std::string&) {
#ifdef MOESWEEP_HAVE_LIKWID
  if (usable()) return std::make_unique<LikwidSession>(*this);
#endif
  return std::make_unique<SoftwareOnlySession>(software_, unavailable_reason_);
}

std::vector<std::string> LikwidBackend::advice() const {
  std::vector<std::string> lines;
  if (!usable()) lines = likwid_advice(version_, likwid_min_version_, software_.cpu());
  if (!usable() && lines.empty())
    lines.push_back("likwid cannot count here (" + unavailable_reason_ + "); try --counters perf");
  return lines;
}

json LikwidBackend::describe() const {
  json d;
  d["backend"] = name();
  d["why"] = why_;
  d["likwid_version"] = version_.empty() ? json(nullptr) : json(version_);
  d["perfmon"] = usable() ? json("initialised") : json{{"unavailable", unavailable_reason_}};
  json groups = json::array();
  for (const auto& g : groups_) groups.push_back(g.def.name);
  d["groups"] = groups;
  json metrics = software_.metric_availability();
  for (const std::string& name : hardware_metric_names()) {
    const std::string why = metric_unavailable(name);
    metrics[name] = why.empty() ? json("measurable") : json{{"unavailable", why}};
  }
  d["metrics"] = metrics;
  d["advice"] = advice();
  if (usable())
    d["notes"] = json::array(
        {"likwid counts every hardware thread of the machine (system-wide), alternates its "
         "groups over the repetitions, and reads events by the exact names of profile " +
         (profile_ ? profile_->name : std::string("?"))});
  return d;
}

}  // namespace moesweep::counters
