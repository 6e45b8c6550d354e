#pragma once
// The machine class a run was measured on: the facts that make speeds of two
// runs comparable at all. Two runs of one class may be compared for a
// regression; runs of different classes differ by the machine, not the code.
//
// Class = CPU vendor, family, model, logical CPUs, total L3 bytes and the CPU
// features of the engine's CPU backend (ggml's list for the variant it runs:
// AVX2, AVX512, ...; a set). Not the engine's release or commit: the
// engine is what a comparison compares (issue 19: main against a PR, one
// release against the next), so two engine builds that run one CPU variant
// on one machine are one class, and compare names the engines it compares. Its id
// (`amd-26-2-2cpu-l3_32m-1a2b3c4d`) names the baseline folder of that class:
// results/baselines/NAME/<class id>/<run id>/.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace moesweep {

// The facts above in words, for messages and docs (docs/results.md).
inline constexpr const char* kMachineClassFacts =
    "CPU vendor, family and model, logical CPUs, L3 size and the CPU features of the engine's CPU "
    "backend";

struct MachineClass {
  bool known = false;  // false: the run carries no build facts (a published table)
  std::string vendor;  // /proc/cpuinfo vendor_id, e.g. AuthenticAMD
  int family = 0, model = 0;
  int logical_cpus = 0;
  std::optional<uint64_t> l3_bytes;  // nullopt: not recorded (runs older than this field)
  std::set<std::string> features;    // build CPU features, compared as a set
};

struct BuildFacts;

// A run's class is read from its meta.json by machine_class_of()
// (results/run_meta.hpp). These are its parts:
// meta.json's "machine_class" object, checked (UserError naming `origin`).
MachineClass machine_class_from_json(const nlohmann::json& j, const std::string& origin);
// From a run's build facts and the machine's total L3 bytes (nullopt: not recorded).
MachineClass machine_class_from_build(const BuildFacts& build, std::optional<uint64_t> l3_bytes);
// From a `build_info_json()` object (this machine's) and its total L3 bytes.
MachineClass machine_class_from_build(const nlohmann::json& build, uint64_t l3_bytes);

// Short, stable folder name: vendor-family-model-<n>cpu-l3_<size>-<hash>,
// hash = 8 hex of fnv1a64 over the sorted features. (Before issue 19 the
// engine commit was hashed in too; baseline_store finds a class folder by its
// runs' facts, not its name, so those folders are still found.)
std::string machine_class_id(const MachineClass& c);
nlohmann::json to_json(const MachineClass& c);  // the fields plus "id"

// What differs, one line per fact ("CPU family: 26 -> 6", "build CPU
// features: -AVX512 +AMX_INT8"). An L3 size recorded on one side only is no
// difference (older runs did not record it). Empty: same class.
std::vector<std::string> machine_class_differences(const MachineClass& base,
                                                   const MachineClass& fresh);
// "+A -B" for two feature sets; "" when equal.
std::string feature_set_difference(const std::set<std::string>& base,
                                   const std::set<std::string>& fresh);

}  // namespace moesweep
