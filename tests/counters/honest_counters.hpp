#pragma once
// The checks every machine and every recorded sysfs tree goes through. The
// expectations come from what the code itself detected (the profile chosen for
// the CPU, the backend's availability, the PMUs in the tree), never from the
// text one CPU family happens to produce.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>

#include "counters/counter_profile.hpp"
#include "counters/sysfs_pmu.hpp"

namespace moesweep::counters::honest {

// Every hardware metric is present. Where `availability` (the backend's own
// describe()["metrics"]) says unavailable, the phase says so with the same
// reason; where it says measurable, the phase has a number or a non-empty
// reason (a counter that never ran, nothing counted).
void expect_hardware_metrics_honest(const nlohmann::json& phase, const nlohmann::json& availability,
                                    const std::string& where);

// perf backend: each unavailable hardware metric's reason is explained by the
// profile (its own "unavailable" text, the NPS1 condition, or a reason naming
// an event the metric's formula reads), or by there being no profile.
void expect_reasons_explained_by_profile(const nlohmann::json& phase,
                                         const std::optional<CounterProfile>& profile,
                                         const std::string& where);

// A recorded tree: an event whose PMU the tree has is "encoded, not opened";
// one whose PMU it lacks is "not found".
void expect_recorded_tree_reasons(const nlohmann::json& phase, const CounterProfile& profile,
                                  const SysfsPmus& pmus, const std::string& where);

// Any PMU the profile's events name exists under `pmus`.
bool profile_pmus_present(const CounterProfile& profile, const SysfsPmus& pmus);

// The first event (not time/tokens/repetitions) a formula reads.
std::string first_event_of(const std::string& formula);

}  // namespace moesweep::counters::honest
