#pragma once
// Event definitions as data (profiles/counters/<family>.json), like likwid's
// perfgroups: which PMU, which field values, and the formulas that turn event
// totals into the metrics a record carries. One file per CPU family; the file
// whose "match" fits /proc/cpuinfo is used.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "counters/cpu_identity.hpp"

namespace moesweep::counters {

enum class EventScope {
  kSystem,  // uncore: pid=-1 on each CPU of the PMU's cpumask, counts the whole domain
  kThread,  // core: per thread of this process
};

struct EventDef {
  std::string name;  // L3_MISSES
  std::string pmu;   // amd_l3, amd_umc_*, uncore_imc_*, cpu
  EventScope scope = EventScope::kSystem;
  // One or more field maps whose counts are summed (Zen 4's twelve DF channels).
  std::vector<std::map<std::string, std::uint64_t>> sum_of;
};

struct MetricDef {
  std::string name;     // l3_hit_rate
  std::string formula;  // L3_HITS / L3_LOOKUPS ; also: time (s), tokens, repetitions
  std::string unit;
  std::string description;
  // Set when this CPU family cannot measure the metric at all (Zen 3 has no
  // DRAM read/write split): the reason, and the formula is empty.
  std::string unavailable;
  // The events count exactly only when each socket is one NUMA node (Zen 3's
  // data fabric in NPS1 mode): with more nodes per socket it is unavailable.
  bool exact_only_in_nps1 = false;
};

// One likwid performance group and the exact likwid event names that stand
// for this profile's quantities (as the perf path names raw codes exactly).
struct LikwidGroupDef {
  std::string name;         // L3CACHE, MEM
  std::string min_version;  // likwid release whose group has these events ("" = any)
  // our name -> likwid event names; the first one the group counts is used
  // (likwid renamed events between releases), never a pattern.
  std::map<std::string, std::vector<std::string>> events;
  std::vector<MetricDef> metrics;  // formulas over our names, time, tokens
};

struct LikwidSpec {
  std::vector<LikwidGroupDef> groups;
  // Metrics likwid cannot give on this family, and why (no group, another definition).
  std::map<std::string, std::string> unavailable;
};

struct CounterProfile {
  std::string name;  // amd-zen5
  std::string description;
  std::filesystem::path file;
  std::string likwid_min_version;  // "5.5.0": older likwid does not know this CPU
  std::map<std::string, EventDef> events;
  std::vector<MetricDef> metrics;
  std::vector<std::string> notes;
  LikwidSpec likwid;
};

// Parses one profile; throws UserError naming the file and field on bad data.
CounterProfile load_counter_profile(const std::filesystem::path& file);

// Every profile in `dir`, searched for the one matching `cpu`; nullopt when no
// file claims this CPU (then hardware metrics are unavailable with that reason).
std::optional<CounterProfile> find_counter_profile(const std::filesystem::path& dir,
                                                   const CpuIdentity& cpu);

// The profiles/counters folder of the shipped data.
std::filesystem::path default_counter_profile_dir();

}  // namespace moesweep::counters
