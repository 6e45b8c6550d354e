#include "counters/counter_profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "counters/metric_formula.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"
#include "util/paths.hpp"

namespace moesweep::counters {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Field values are written as in the kernel's and perf's docs: "0x04" or 4.
std::uint64_t field_value(const json& v, const std::string& origin) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_string()) {
    try {
      return std::stoull(v.get<std::string>(), nullptr, 0);
    } catch (const std::exception&) {
    }
  }
  throw UserError(fmt::format("{}: field value {} is not a number", origin, v.dump()),
                  "an integer or a string such as \"0x04\"", fmt::format("correct {}", origin));
}

std::map<std::string, std::uint64_t> field_map(const json& obj, const std::string& origin) {
  if (!obj.is_object())
    throw UserError(fmt::format("{}: fields must be an object", origin),
                    "{\"event\": \"0x04\", \"umask\": \"0xff\"}",
                    fmt::format("correct {}", origin));
  std::map<std::string, std::uint64_t> fields;
  for (const auto& [k, v] : obj.items())
    fields[k] = field_value(v, fmt::format("{}.{}", origin, k));
  return fields;
}

EventDef parse_event(const std::string& name, const json& obj, const std::string& origin) {
  EventDef e;
  e.name = name;
  e.pmu = require_field<std::string>(obj, "pmu", origin);
  const std::string scope = optional_field<std::string>(obj, "scope", "system", origin);
  if (scope != "system" && scope != "thread")
    throw UserError(fmt::format("{}: scope '{}'", origin, scope), "system or thread",
                    "uncore PMUs are 'system', core PMUs 'thread'");
  e.scope = scope == "system" ? EventScope::kSystem : EventScope::kThread;
  if (obj.contains("fields")) e.sum_of.push_back(field_map(obj["fields"], origin + ".fields"));
  if (obj.contains("sum_of")) {
    for (const auto& f : obj["sum_of"]) e.sum_of.push_back(field_map(f, origin + ".sum_of"));
  }
  if (e.sum_of.empty())
    throw UserError(fmt::format("{}: no 'fields' or 'sum_of'", origin), "the event's field values",
                    "add \"fields\": {\"event\": ..., \"umask\": ...}");
  return e;
}

bool range_contains(const json& ranges, int model) {
  for (const auto& r : ranges) {
    if (r.is_number_integer() && r.get<int>() == model) return true;
    if (r.is_array() && r.size() == 2 && model >= r[0].get<int>() && model <= r[1].get<int>())
      return true;
  }
  return false;
}

bool profile_matches(const json& match, const CpuIdentity& cpu) {
  if (match.value("vendor", "") != cpu.vendor) return false;
  if (match.value("family", -1) != cpu.family) return false;
  // No "models": the whole family (Zen 5 is all of family 0x1A).
  return !match.contains("models") || range_contains(match["models"], cpu.model);
}

MetricDef parse_metric(const std::string& name, const json& obj, const std::string& where,
                       const std::set<std::string>& events) {
  MetricDef m;
  m.name = name;
  if (obj.is_string()) {
    m.formula = obj.get<std::string>();  // likwid groups: just the formula
  } else {
    m.unavailable = optional_field<std::string>(obj, "unavailable", "", where);
    m.formula = m.unavailable.empty() ? require_field<std::string>(obj, "formula", where) : "";
    m.unit = optional_field<std::string>(obj, "unit", "", where);
    m.description = optional_field<std::string>(obj, "description", "", where);
    m.exact_only_in_nps1 = optional_field<bool>(obj, "exact_only_in_nps1", false, where);
  }
  try {
    for (const std::string& id :
         m.unavailable.empty() ? formula_identifiers(m.formula) : std::vector<std::string>{}) {
      if (id != "time" && id != "tokens" && id != "repetitions" && !events.count(id))
        throw UserError(fmt::format("{}: formula names '{}', which is not an event", where, id),
                        "an event of this profile, 'time', 'tokens' or 'repetitions'",
                        "define the event");
    }
  } catch (const std::invalid_argument& e) {
    throw UserError(fmt::format("{}: {}", where, e.what()), "+ - * / ( ) names numbers",
                    "fix the formula");
  }
  return m;
}

std::vector<std::string> string_list(const json& v, const std::string& where) {
  if (v.is_string()) return {v.get<std::string>()};
  std::vector<std::string> out;
  if (v.is_array())
    for (const auto& s : v)
      if (s.is_string()) out.push_back(s.get<std::string>());
  if (out.empty() || (v.is_array() && out.size() != v.size()))
    throw UserError(
        fmt::format("{}: {} is not a likwid event name or a list of them", where, v.dump()),
        "\"L3_CACHE_REQ\" or [\"L3_LOOKUP_STATE_ALL_TYPES\", \"L3_CACHE_REQ\"]",
        fmt::format("correct {}", where));
  return out;
}

LikwidSpec parse_likwid(const json& obj, const std::string& origin) {
  LikwidSpec spec;
  const json groups = obj.value("groups", json::object());
  for (const auto& [name, g] : groups.items()) {
    const std::string where = fmt::format("{}: likwid.groups.{}", origin, name);
    LikwidGroupDef def;
    def.name = name;
    def.min_version = optional_field<std::string>(g, "min_version", "", where);
    std::set<std::string> ids;
    const json events = g.value("events", json::object());  // a copy: keep it alive
    const json metrics = g.value("metrics", json::object());
    for (const auto& [ours, theirs] : events.items()) {
      def.events[ours] = string_list(theirs, where + ".events." + ours);
      ids.insert(ours);
    }
    for (const auto& [metric, m] : metrics.items())
      def.metrics.push_back(parse_metric(metric, m, where + ".metrics." + metric, ids));
    spec.groups.push_back(std::move(def));
  }
  const json unavailable = obj.value("unavailable", json::object());
  for (const auto& [metric, why] : unavailable.items()) {
    if (!why.is_string())
      throw UserError(fmt::format("{}: likwid.unavailable.{} is not a string", origin, metric),
                      "the reason likwid cannot give this metric",
                      fmt::format("correct likwid.unavailable.{} in {}", metric, origin));
    spec.unavailable[metric] = why.get<std::string>();
  }
  return spec;
}

}  // namespace

CounterProfile load_counter_profile(const fs::path& file) {
  const json doc = read_json_file(file, "counter profile");
  const std::string origin = file.filename().string();
  CounterProfile p;
  p.file = file;
  p.name = require_field<std::string>(doc, "name", origin);
  p.description = optional_field<std::string>(doc, "description", "", origin);
  p.likwid_min_version = optional_field<std::string>(doc, "likwid_min_version", "", origin);
  // value() returns a copy: keep it alive while iterating.
  const json events = doc.value("events", json::object());
  const json metrics = doc.value("metrics", json::object());
  std::set<std::string> names;
  for (const auto& [name, obj] : events.items()) {
    p.events.emplace(name, parse_event(name, obj, fmt::format("{}: events.{}", origin, name)));
    names.insert(name);
  }
  for (const auto& [name, obj] : metrics.items())
    p.metrics.push_back(
        parse_metric(name, obj, fmt::format("{}: metrics.{}", origin, name), names));
  for (const auto& n : doc.value("notes", json::array())) p.notes.push_back(n.get<std::string>());
  if (doc.contains("likwid")) p.likwid = parse_likwid(doc["likwid"], origin);
  return p;
}

std::optional<CounterProfile> find_counter_profile(const fs::path& dir, const CpuIdentity& cpu) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    const json doc = read_json_file(file, "counter profile");
    if (doc.contains("match") && profile_matches(doc["match"], cpu))
      return load_counter_profile(file);
  }
  return std::nullopt;
}

fs::path default_counter_profile_dir() {
  return profiles_dir() / "counters";
}

}  // namespace moesweep::counters
