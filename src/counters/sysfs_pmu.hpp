#pragma once
// What the kernel says about its PMUs under <root>/bus/event_source/devices:
// the type number perf_event_open wants, the CPUs an uncore PMU must be opened
// on (cpumask), and the format files that say where each field of a raw event
// lives ("config:0-7,32-35"). Raw configs are encoded through those files, never
// through hard-coded shifts, because the layout differs between CPU families
// (amd_df's event is 12 bits on Zen 3 and 14 on Zen 4) and kernel versions.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace moesweep::counters {

// The three 64-bit words of perf_event_attr that raw fields are packed into.
struct RawConfig {
  std::uint64_t config = 0;
  std::uint64_t config1 = 0;
  std::uint64_t config2 = 0;
  bool operator==(const RawConfig&) const = default;
};

// One format file: the word it targets and its bit ranges, low bits first.
struct FieldFormat {
  std::string word;                         // config, config1 or config2
  std::vector<std::pair<int, int>> ranges;  // inclusive [lo, hi] bit ranges
  int width() const;
};

// Parses "config:0-7,32-35" / "config1:0-63" / "config:46"; throws
// std::invalid_argument naming the text when it is not that shape.
FieldFormat parse_field_format(const std::string& text);

struct PmuInfo {
  std::string name;                   // amd_l3, amd_umc_0, uncore_imc_3, cpu
  std::optional<std::uint32_t> type;  // perf_event_attr.type
  std::vector<int> cpumask;           // empty: a per-thread (core) PMU
  std::map<std::string, FieldFormat> formats;
};

// Encodes field=value pairs. Throws std::invalid_argument for a field the PMU
// does not have or a value wider than the field.
RawConfig encode_raw_config(const PmuInfo& pmu, const std::map<std::string, std::uint64_t>& fields);

// "0-3,8,10-11" -> {0,1,2,3,8,10,11}
std::vector<int> parse_cpu_list(const std::string& text);

class SysfsPmus {
 public:
  // root: "/sys" on a live system. Any other root is a recorded copy of another
  // machine: its events are encoded and described but never opened here.
  explicit SysfsPmus(std::filesystem::path root = "/sys");
  const std::filesystem::path& root() const { return root_; }
  std::vector<std::string> names() const;
  std::optional<PmuInfo> find(const std::string& name) const;
  // "amd_umc_*" -> every amd_umc_<n>; a name without '*' -> that PMU if present.
  std::vector<PmuInfo> match(const std::string& pattern) const;

 private:
  std::filesystem::path devices_dir() const;
  std::filesystem::path root_;
};

}  // namespace moesweep::counters
