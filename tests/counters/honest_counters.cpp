#include "honest_counters.hpp"

#include <gtest/gtest.h>

#include "counters/derived_metrics.hpp"
#include "counters/metric_formula.hpp"

namespace moesweep::counters::honest {
using nlohmann::json;

namespace {

const MetricDef* metric_of(const CounterProfile& profile, const std::string& name) {
  for (const MetricDef& m : profile.metrics)
    if (m.name == name) return &m;
  return nullptr;
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

}  // namespace

std::string first_event_of(const std::string& formula) {
  for (const std::string& id : formula_identifiers(formula))
    if (id != "time" && id != "tokens" && id != "repetitions") return id;
  return "";
}

void expect_hardware_metrics_honest(const json& phase, const json& availability,
                                    const std::string& where) {
  for (const std::string& name : hardware_metric_names()) {
    ASSERT_TRUE(phase.contains(name)) << where << " " << name << " " << phase.dump(2);
    ASSERT_TRUE(availability.contains(name)) << where << " " << name << availability.dump(2);
    const json& value = phase[name];
    if (availability[name].is_object()) {
      const std::string why = availability[name]["unavailable"];
      ASSERT_TRUE(value.is_object()) << where << " " << name << " = " << value.dump();
      EXPECT_EQ(value["unavailable"].get<std::string>(), why) << where << " " << name;
      EXPECT_FALSE(why.empty()) << where << " " << name;
      continue;
    }
    EXPECT_EQ(availability[name], "measurable") << where << " " << name;
    if (value.is_object())
      EXPECT_FALSE(value["unavailable"].get<std::string>().empty()) << where << " " << name;
    else
      EXPECT_TRUE(value.is_number()) << where << " " << name << " = " << value.dump();
  }
}

void expect_reasons_explained_by_profile(const json& phase,
                                         const std::optional<CounterProfile>& profile,
                                         const std::string& where) {
  for (const std::string& name : hardware_metric_names()) {
    if (!phase[name].is_object()) continue;
    const std::string why = phase[name]["unavailable"];
    if (!profile) {
      EXPECT_NE(why.find("no counter profile"), std::string::npos) << where << " " << name << why;
      continue;
    }
    const MetricDef* m = metric_of(*profile, name);
    if (!m) {
      EXPECT_NE(why.find("does not define"), std::string::npos) << where << " " << name << why;
    } else if (!m->unavailable.empty()) {
      EXPECT_EQ(why, m->unavailable) << where << " " << name;  // the family cannot measure it
    } else if (m->exact_only_in_nps1 && why.find("NPS1") != std::string::npos) {
      EXPECT_NE(why.find(profile->name), std::string::npos) << where << " " << name << why;
    } else {
      bool named = false;  // an event the formula reads, with its own reason
      for (const std::string& id : formula_identifiers(m->formula))
        named = named || starts_with(why, id + ": ") || starts_with(why, id + " ");
      named = named || why.find("denominator") != std::string::npos;
      EXPECT_TRUE(named) << where << " " << name << ": '" << why << "' names no event of "
                         << m->formula;
    }
  }
}

void expect_recorded_tree_reasons(const json& phase, const CounterProfile& profile,
                                  const SysfsPmus& pmus, const std::string& where) {
  for (const MetricDef& m : profile.metrics) {
    if (!m.unavailable.empty()) continue;
    const std::string why = phase[m.name]["unavailable"];
    const std::string event = first_event_of(m.formula);
    ASSERT_TRUE(profile.events.count(event)) << m.name;
    const EventDef& e = profile.events.at(event);
    EXPECT_TRUE(starts_with(why, event + ": ")) << where << " " << m.name << ": " << why;
    if (pmus.match(e.pmu).empty())
      EXPECT_NE(why.find("not found in"), std::string::npos) << where << " " << m.name << why;
    else
      EXPECT_NE(why.find("recorded sysfs copy"), std::string::npos)
          << where << " " << m.name << why;
  }
}

bool profile_pmus_present(const CounterProfile& profile, const SysfsPmus& pmus) {
  for (const auto& [name, e] : profile.events)
    if (!pmus.match(e.pmu).empty()) return true;
  return false;
}

}  // namespace moesweep::counters::honest
