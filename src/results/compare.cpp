#include "results/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "results/engine_sides.hpp"
#include "results/point_fields.hpp"
#include "results/stats.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

// A key's fields by name, in key order ("model=a;quant=Q4_K_S" -> model: a, ...).
std::vector<std::pair<std::string, std::string>> key_fields(const std::string& key) {
  std::vector<std::pair<std::string, std::string>> fields;
  std::stringstream ss(key);
  for (std::string part; std::getline(ss, part, ';');) {
    const auto eq = part.find('=');
    if (eq == std::string::npos)
      fields.emplace_back(part, "");
    else
      fields.emplace_back(part.substr(0, eq), part.substr(eq + 1));
  }
  return fields;
}

// Field-by-field differences of two keys ("model: a -> b; engine: (none) -> pr"),
// matched by name: a field only one key holds (engine= is written only when
// set) is a difference, not another layout. Display only: a tensor-override
// list with ';' in it can shift the fields.
std::pair<int, std::string> key_differences(const std::string& a, const std::string& b) {
  const auto fa = key_fields(a), fb = key_fields(b);
  const std::map<std::string, std::string> mb(fb.begin(), fb.end());
  std::set<std::string> seen;
  int count = 0;
  std::string text;
  auto differ = [&](const std::string& name, const std::string& va, const std::string& vb) {
    ++count;
    text += fmt::format("{}{}: {} -> {}", text.empty() ? "" : "; ", name, va, vb);
  };
  for (const auto& [name, value] : fa) {
    seen.insert(name);
    const auto it = mb.find(name);
    if (it == mb.end())
      differ(name, value, "(not in key)");
    else if (it->second != value)
      differ(name, value, it->second);
  }
  for (const auto& [name, value] : fb)
    if (!seen.count(name)) differ(name, "(not in key)", value);
  return {count, text};
}

struct Side {
  std::map<std::string, Record> by_key;  // copies: pooled points are merged records
  std::vector<std::string> order;        // first appearance
  std::vector<std::string> failed;
  int duplicates = 0;
};

void append_samples(PhaseResult& into, const PhaseResult& from) {
  into.seconds.insert(into.seconds.end(), from.seconds.begin(), from.seconds.end());
  into.tokens_per_s.insert(into.tokens_per_s.end(), from.tokens_per_s.begin(),
                           from.tokens_per_s.end());
  into.summarize();
}

Side index_side(const LoadedRun& run, const std::set<std::string>& ignore) {
  Side side;
  for (const Record& r : run.records) {
    const std::string key = join_key(r.params, ignore);
    if (!r.ok) {
      side.failed.push_back(key);
      continue;
    }
    auto [it, inserted] = side.by_key.insert({key, r});
    if (inserted) {
      side.order.push_back(key);
    } else if (run.pooled_runs > 1) {
      append_samples(it->second.pp, r.pp);  // the same point in another run of the set
      append_samples(it->second.tg, r.tg);
    } else {
      it->second = r;  // a later measurement of the same point (a resumed retry) wins
      ++side.duplicates;
    }
  }
  return side;
}

std::vector<Unmatched> unmatched(const Side& mine, const Side& other) {
  std::vector<Unmatched> out;
  for (const std::string& key : mine.order) {
    if (other.by_key.count(key)) continue;
    Unmatched u{key, "", ""};
    int best = 1 << 30;
    for (const std::string& candidate : other.order) {
      auto [count, text] = key_differences(key, candidate);
      if (count < best) {
        best = count;
        u.closest_other = candidate;
        u.differences = text;
      }
    }
    out.push_back(std::move(u));
  }
  return out;
}

// Facts that differ between any two runs and say nothing about the machine.
bool volatile_fact(const std::string& key) {
  if (key == "/name") return true;
  for (const char* word : {"run_id", "run_dir", "status", "time", "started", "finished", "duration",
                           "elapsed", "date", "pid", "points", "command"}) {
    if (key.find(word) != std::string::npos) return true;
  }
  return false;
}

// A path says where a file was, not what it was (the sha256 says that).
bool path_fact(const std::string& key) {
  return key.size() >= 5 && key.compare(key.size() - 5, 5, "/path") == 0;
}

// Lists (CPU features) are sets: compared as such, not index by index.
bool list_fact(const std::string& key) {
  return key.rfind("/build/cpu_features/", 0) == 0 || key.rfind("/machine_class/", 0) == 0;
}

std::set<std::string> string_set(const nlohmann::json& meta,
                                 const nlohmann::json::json_pointer& p) {
  std::set<std::string> out;
  if (!meta.contains(p) || !meta.at(p).is_array()) return out;
  for (const auto& v : meta.at(p))
    if (v.is_string()) out.insert(v.get<std::string>());
  return out;
}

std::vector<std::string> environment_differences(const nlohmann::json& a, const nlohmann::json& b) {
  std::vector<std::string> out;
  if (!a.is_object() || !b.is_object() || a.empty() || b.empty()) return out;
  const nlohmann::json::json_pointer features("/build/cpu_features");
  const std::string feature_change =
      feature_set_difference(string_set(a, features), string_set(b, features));
  if (!feature_change.empty()) out.push_back("/build/cpu_features: " + feature_change);
  const nlohmann::json fa = a.flatten(), fb = b.flatten();
  for (const auto& [key, value] : fa.items()) {
    if (volatile_fact(key) || path_fact(key) || list_fact(key)) continue;
    if (!fb.contains(key) || fb[key] == value) continue;
    auto text = [](const nlohmann::json& v) {
      std::string t = v.is_string() ? v.get<std::string>() : v.dump();
      return t.size() > 60 ? t.substr(0, 57) + "..." : t;
    };
    out.push_back(fmt::format("{}: {} -> {}", key, text(value), text(fb[key])));
  }
  return out;
}

}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kRegression:
      return "REGRESSION";
    case Verdict::kImprovement:
      return "improvement";
    case Verdict::kSmall:
      return "small";
    case Verdict::kNoise:
      return "noise";
    case Verdict::kInconclusive:
      return "inconclusive";
    case Verdict::kUntestable:
      return "untestable";
  }
  return "?";
}

std::vector<Metric> parse_metrics(const std::string& name) {
  if (name == "pp") return {Metric::kPp};
  if (name == "tg") return {Metric::kTg};
  if (name == "both") return {Metric::kPp, Metric::kTg};
  throw UserError("unknown --metric '" + name + "'", "pp, tg or both",
                  "pass --metric tg to gate on generation speed only");
}

const std::vector<std::string>& ignorable_fields() {
  static const std::vector<std::string> names = [] {
    // Every key field, the cell's too: leaving pp/tg/n_kv out joins different
    // measurements, which is what putting a run beside a published table needs.
    std::vector<std::string> v;
    for (const PointField& f : point_fields()) {
      if (f.key) v.push_back(f.key);
    }
    return v;
  }();
  return names;
}

std::set<std::string> parse_ignored_fields(const std::string& list, const std::string& flag) {
  std::set<std::string> out;
  std::stringstream ss(list);
  for (std::string name; std::getline(ss, name, ',');) {
    if (name.empty()) continue;
    bool known = false;
    for (const auto& field : ignorable_fields()) known = known || field == name;
    if (!known) {
      std::string all;
      for (const auto& field : ignorable_fields()) all += (all.empty() ? "" : ",") + field;
      throw UserError(flag + " names unknown key field '" + name + "'", "one of: " + all,
                      "use the names shown in the mismatch list of `moesweep compare`");
    }
    out.insert(name);
  }
  return out;
}

std::set<std::string> fields_not_in(const std::set<std::string>& kept) {
  std::set<std::string> out;
  for (const auto& name : ignorable_fields()) {
    if (!kept.count(name)) out.insert(name);
  }
  return out;
}

std::string join_key(const PointParams& params, const std::set<std::string>& ignore) {
  if (ignore.empty()) return params.key_string();
  PointParams p = params;
  for (const PointField& f : point_fields()) {
    if (f.key && ignore.count(f.key)) blank_field(f, p);
  }
  return p.key_string();
}

namespace {

// Repetition i of both sides ran side by side: two engines of one run, which
// took turns repetition by repetition. Joined on fewer fields (--ignore,
// --on), one key may hold several cells: no pairs then.
bool samples_are_pairs(const LoadedRun& base, const LoadedRun& fresh,
                       const CompareOptions& options) {
  const bool pairs = base.interleaved && fresh.interleaved && base.run_id == fresh.run_id &&
                     base.run_dir == fresh.run_dir && base.pooled_runs == 1 &&
                     fresh.pooled_runs == 1 && options.ignore.empty();
  if (!pairs && is_paired(options.test))
    throw UserError(fmt::format("--test {} needs pairs, and '{}' and '{}' have none",
                                test_kind_name(options.test), base.label, fresh.label),
                    "two engines of one run, which took turns repetition by repetition (sweep "
                    "--engine a,b), joined on every key field",
                    "compare RUN --engines A,B; or drop --test (auto takes an unpaired test "
                    "for two runs)");
  return pairs;
}

}  // namespace

namespace {

// The values one key field takes over a run's points ("" where blank).
std::set<std::string> field_values(const LoadedRun& run, const PointField& f) {
  std::set<std::string> out;
  for (const Record& r : run.records) out.insert(field_text(f, r.params));
  return out;
}

// Two runs of one engine each (`sweep --engine a`, then `--engine b`): the
// engine is what the comparison compares, so its fields (the build, ik's
// switches) are joined on the rest, and the report says so. A side that
// holds several engines keeps them in the key (compare RUN --engines A,B).
std::vector<std::string> single_engine_fields(const LoadedRun& base, const LoadedRun& fresh,
                                              const std::set<std::string>& ignore) {
  std::vector<std::string> out;
  for (const char* name : {"engine", "engine_opts"}) {
    const PointField* f = field_by_key(name);
    if (!f || ignore.count(name)) continue;
    const std::set<std::string> a = field_values(base, *f), b = field_values(fresh, *f);
    if (a.size() == 1 && b.size() == 1 && a != b) out.push_back(name);
  }
  return out;
}

}  // namespace

Comparison compare_runs(const LoadedRun& base, const LoadedRun& fresh,
                        const CompareOptions& options) {
  Comparison c;
  c.options = options;
  c.engine_fields_joined = single_engine_fields(base, fresh, options.ignore);
  if (!c.engine_fields_joined.empty()) {
    const PointField* engine = field_by_key("engine");
    c.base_engine_name = *field_values(base, *engine).begin();
    c.new_engine_name = *field_values(fresh, *engine).begin();
  }
  c.options.ignore.insert(c.engine_fields_joined.begin(), c.engine_fields_joined.end());
  c.base_label = base.label;
  if (base.pooled_runs > 1) c.base_label += fmt::format(" ({} runs pooled)", base.pooled_runs);
  c.new_label = fresh.label;
  if (fresh.pooled_runs > 1) c.new_label += fmt::format(" ({} runs pooled)", fresh.pooled_runs);
  const Side sb = index_side(base, c.options.ignore), sn = index_side(fresh, c.options.ignore);
  c.failed_base = sb.failed;
  c.failed_new = sn.failed;
  c.duplicates = sb.duplicates + sn.duplicates;
  c.paired = samples_are_pairs(base, fresh, options);
  // The matched points first: Holm's alpha per cell (what auto's choice of
  // an unpaired test must reach) depends on how many cells are tested.
  std::vector<std::pair<const Record*, const Record*>> matched;
  for (const std::string& key : sb.order)
    if (auto other = sn.by_key.find(key); other != sn.by_key.end())
      matched.push_back({&sb.by_key.at(key), &other->second});
  const auto phase = [](const Record& r, Metric m) -> const PhaseResult& {
    return m == Metric::kPp ? r.pp : r.tg;
  };
  int tests = 0;
  for (const auto& [rb, rn] : matched)
    for (Metric metric : options.metrics)
      tests += phase(*rb, metric).tokens_per_s.size() >= 2 &&
               phase(*rn, metric).tokens_per_s.size() >= 2;
  const double cell_alpha = cell_alpha_of(options, tests);
  for (const auto& [rb, rn] : matched) {
    PointComparison pc{join_key(rb->params, c.options.ignore), rb->params, {}};
    for (Metric metric : options.metrics) {
      if (phase(*rb, metric).tokens_per_s.empty() && phase(*rn, metric).tokens_per_s.empty())
        continue;  // neither side measured this phase
      pc.metrics.push_back(compare_metric(metric, phase(*rb, metric), phase(*rn, metric), options,
                                          c.paired, cell_alpha));
    }
    c.points.push_back(std::move(pc));
  }
  apply_family(c);  // the family's control, the verdicts, the aggregates and the gate
  if (base.meta && fresh.meta)
    c.environment_differences = environment_differences(to_json(*base.meta), to_json(*fresh.meta));
  if (base.meta) c.base_machine = machine_class_of(*base.meta);
  if (fresh.meta) c.new_machine = machine_class_of(*fresh.meta);
  c.machine_differences = machine_class_differences(c.base_machine, c.new_machine);
  c.base_engine = engine_summary(base);
  c.new_engine = engine_summary(fresh);
  c.only_in_base = unmatched(sb, sn);
  c.only_in_new = unmatched(sn, sb);
  return c;
}

void check_same_machine_class(const Comparison& c) {
  if (c.machine_differences.empty() || c.options.allow_environment_change) return;
  std::string what;
  for (const auto& d : c.machine_differences) what += (what.empty() ? "" : "; ") + d;
  throw UserError(
      fmt::format("'{}' and '{}' were measured on different machine classes ({} -> {}): {}",
                  c.base_label, c.new_label, machine_class_id(c.base_machine),
                  machine_class_id(c.new_machine), what),
      fmt::format("runs of one machine class ({}): a speed difference between classes is no "
                  "regression of the code",
                  kMachineClassFacts),
      "compare with a baseline recorded on this machine class (moesweep gate --update records "
      "one), or pass --allow-environment-change to compare anyway");
}

const char* metric_label(Metric m) {
  return m == Metric::kPp ? "S_PP" : "S_TG";
}

}  // namespace moesweep
