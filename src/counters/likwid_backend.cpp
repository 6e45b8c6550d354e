#include "counters/likwid_backend.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <regex>

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
// One group's raw event sums and metric integrals over the repetitions it ran in.
struct GroupTotals {
  int repetitions = 0;
  double wall_s = 0, tokens = 0;
  std::map<std::string, double> events;       // event name -> summed over threads and reps
  std::map<std::string, double> metric_wall;  // rate metric x wall, summed (-> mean rate)
  std::map<std::string, double> metric_sum;   // volume metrics, summed
};

double sum_matching(const std::map<std::string, double>& m, const std::regex& re, bool* found) {
  double sum = 0;
  for (const auto& [name, value] : m)
    if (std::regex_search(name, re)) {
      sum += value;
      *found = true;
    }
  return sum;
}

class LikwidSession : public CounterSession {
 public:
  explicit LikwidSession(const LikwidBackend& backend) : backend_(backend) {}

  void start() override {
    const auto& groups = backend_.groups();
    // Groups cannot run together; alternate them over the repetitions.
    group_ = rep_ % static_cast<int>(groups.size());
    const int id = groups[group_].id;
    setup_ok_ = perfmon_setupCounters(id) == 0 && perfmon_startCounters() == 0;
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
    const int id = backend_.groups()[group_].id;
    GroupTotals& g = groups_[backend_.groups()[group_].name];
    g.repetitions += 1;
    g.wall_s += wall_s;
    g.tokens += tokens;
    const int threads = perfmon_getNumberOfThreads();
    for (int e = 0; e < perfmon_getNumberOfEvents(id); ++e)
      for (int t = 0; t < threads; ++t)
        g.events[perfmon_getEventName(id, e)] += perfmon_getResult(id, e, t);
    for (int m = 0; m < perfmon_getNumberOfMetrics(id); ++m)
      for (int t = 0; t < threads; ++t) {
        const double v = perfmon_getMetric(id, m, t);
        if (!std::isfinite(v)) continue;
        g.metric_wall[perfmon_getMetricName(id, m)] += v * wall_s;
        g.metric_sum[perfmon_getMetricName(id, m)] += v;
      }
  }

  json result() const override {
    json out = backend_.software().derive(software_);
    const auto unavailable = [](const std::string& why) { return json{{"unavailable", why}}; };
    for (const std::string& name : hardware_metric_names())
      out[name] = unavailable("no repetition ran a likwid group that measures it");
    if (auto it = groups_.find("L3CACHE"); it != groups_.end() && it->second.tokens > 0) {
      const GroupTotals& g = it->second;
      bool hit = false, miss = false, access = false;
      const double hits = sum_matching(g.events, std::regex("L3.*HIT"), &hit);
      const double misses = sum_matching(g.events, std::regex("L3.*MISS"), &miss);
      const double accesses =
          sum_matching(g.events, std::regex("L3.*(ACCESS|REQUEST|LOOKUP)"), &access);
      if (miss) out["l3_misses_per_token"] = misses / g.tokens;
      const double lookups = hit && miss ? hits + misses : accesses;
      if (!(hit && miss) && !(access && miss))
        out["l3_hit_rate"] =
            unavailable("likwid's L3CACHE group here has no L3 hit/miss or access/miss event pair");
      else if (lookups <= 0)
        out["l3_hit_rate"] = unavailable("likwid counted no L3 lookups in this phase");
      else
        out["l3_hit_rate"] = (lookups - misses) / lookups;
    }
    if (auto it = groups_.find("MEM"); it != groups_.end() && it->second.wall_s > 0) {
      const GroupTotals& g = it->second;
      // likwid's MEM metrics are MBytes/s per thread (non-zero on socket leaders); sum them.
      bool read = false, write = false, total = false, volume = false;
      const double rd =
          sum_matching(g.metric_wall, std::regex("[Rr]ead bandwidth \\[MBytes/s\\]"), &read);
      const double wr =
          sum_matching(g.metric_wall, std::regex("[Ww]rite bandwidth \\[MBytes/s\\]"), &write);
      const double all =
          sum_matching(g.metric_wall, std::regex("^Memory bandwidth \\[MBytes/s\\]"), &total);
      const double gbytes =
          sum_matching(g.metric_sum, std::regex("^Memory data volume \\[GBytes\\]"), &volume);
      if (read) out["dram_read_gbps"] = rd / g.wall_s / 1e3;
      if (write) out["dram_write_gbps"] = wr / g.wall_s / 1e3;
      if (total) out["dram_gbps"] = all / g.wall_s / 1e3;
      if (volume && g.tokens > 0) out["dram_bytes_per_token"] = gbytes * 1e9 / g.tokens;
    }
    return out;
  }

 private:
  const LikwidBackend& backend_;
  PerfBackend::Snapshot before_;
  PhaseTotals software_;
  std::map<std::string, GroupTotals> groups_;
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
  if (const auto profile = find_counter_profile(dir, software_.cpu()))
    likwid_min_version_ = profile->likwid_min_version;
#ifdef MOESWEEP_HAVE_LIKWID
  const CpuIdentity& cpu = software_.cpu();
  const char* force = std::getenv("MOESWEEP_LIKWID_FORCE_PROBE");
  if (!version_.empty() && !likwid_min_version_.empty() &&
      compare_versions(version_, likwid_min_version_) < 0 && !(force && *force == '1')) {
    unavailable_reason_ = fmt::format(
        "liblikwid {} does not support {} (family {} model {}): likwid >= {} does; perfmon_init "
        "not attempted (this liblikwid exits the process on CPUs it does not know)",
        version_, cpu.model_name, cpu.family, cpu.model, likwid_min_version_);
    return;
  }
  // Ask a child first: a liblikwid that cannot count here may exit() instead of failing.
  const std::vector<std::string> wanted = {"L3CACHE", "MEM"};
  const LikwidProbeResult probe = probe_likwid_in_child(wanted, std::chrono::seconds(20));
  init_messages_ = probe.messages;
  if (!probe.failure.empty()) {
    unavailable_reason_ = probe.failure;
    if (!version_.empty()) unavailable_reason_ += fmt::format(" (liblikwid {})", version_);
    return;
  }
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
  for (const std::string& group : wanted) {
    const int id = perfmon_addEventSet(group.c_str());
    if (id >= 0)
      groups_.push_back({group, id});
    else
      failures += fmt::format("{}{} ({})", failures.empty() ? "" : ", ", group, id);
  }
  init_messages_ = capture.finish();
  if (groups_.empty())
    unavailable_reason_ = fmt::format(
        "likwid has neither group L3CACHE nor MEM for this CPU: "
        "perfmon_addEventSet failed for {}",
        failures);
#else
  unavailable_reason_ =
      "moesweep was built without liblikwid (install liblikwid-dev and reconfigure)";
#endif
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
  for (const auto& g : groups_) groups.push_back(g.name);
  d["groups"] = groups;
  json metrics = software_.metric_availability();
  for (const std::string& name : hardware_metric_names())
    metrics[name] = usable() ? json("measurable if likwid's group has it")
                             : json{{"unavailable", unavailable_reason_}};
  d["metrics"] = metrics;
  d["advice"] = advice();
  if (usable())
    d["notes"] = {
        "likwid counts every hardware thread of the machine (system-wide), "
        "and alternates the groups L3CACHE and MEM over the repetitions"};
  return d;
}

}  // namespace moesweep::counters
