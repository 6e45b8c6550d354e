#include "results/record.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>

#include "results/memory_fields.hpp"
#include "results/point_fields.hpp"

namespace moesweep {

std::string PointParams::key_string() const {
  std::string out;
  for (const PointField& f : point_fields()) {
    if (!f.key || (f.key_only_when_set && field_is_blank(f, *this))) continue;
    if (!out.empty()) out += ';';
    out += fmt::format("{}={}", f.key, field_text(f, *this));
  }
  return out;
}

std::string flash_attn_name(int flash_attn) {
  return flash_attn < 0 ? "auto" : flash_attn == 0 ? "off" : "on";
}

std::string cotenant_label(const std::string& cotenant) {
  if (cotenant.empty()) return "none";
  return cotenant.rfind("cmd:", 0) == 0 ? "cmd" : cotenant;
}

std::string load_mode_of(bool use_mmap, bool use_mlock) {
  if (use_mmap) return use_mlock ? "mmap+mlock" : "mmap";
  return use_mlock ? "mlock" : "none";
}

void PhaseResult::summarize() {
  t = Stats::of(seconds);
  speed = Stats::of(tokens_per_s);
}

namespace {

nlohmann::json stats_json(const Stats& s) {
  return {{"n", s.n},     {"mean", s.mean}, {"sd", s.sd}, {"median", s.median},
          {"min", s.min}, {"max", s.max},   {"cv", s.cv}, {"ci95", s.ci95}};
}

nlohmann::json phase_json(const PhaseResult& p) {
  nlohmann::json j = {{"samples_s", p.seconds},
                      {"samples_ts", p.tokens_per_s},
                      {"t", stats_json(p.t)},
                      {"speed", stats_json(p.speed)},
                      {"counters", p.counters}};
  if (p.tokens_run > 0) j["tokens_run"] = p.tokens_run;
  return j;
}

void phase_from_json(const nlohmann::json& j, PhaseResult& p) {
  if (!j.is_object()) return;
  p.seconds = j.value("samples_s", std::vector<double>{});
  p.tokens_per_s = j.value("samples_ts", std::vector<double>{});
  p.counters = j.value("counters", nlohmann::json::object());
  const auto run = j.find("tokens_run");
  if (run != j.end() && run->is_number_integer() && run->get<int64_t>() > 0 &&
      run->get<int64_t>() <= INT32_MAX)
    p.tokens_run = static_cast<int>(run->get<int64_t>());
  p.summarize();
}

}  // namespace

nlohmann::json RepetitionOutcome::to_json() const {
  nlohmann::json j = {{"done", done}, {"target_ci_pct", nullptr}, {"target_met", target_met}};
  if (target_ci_pct > 0) j["target_ci_pct"] = target_ci_pct;
  if (target_mde_pct > 0) j["target_mde_pct"] = target_mde_pct;
  return j;
}

nlohmann::ordered_json record_to_json(const Record& r) {
  const PointParams& p = r.params;
  nlohmann::ordered_json j;
  // sweep-bench's keys, same names and meaning (times are means, seconds).
  std::vector<const PointField*> sweep_bench;
  for (const PointField& f : point_fields()) {
    if (f.sweep_bench_pos > 0) sweep_bench.push_back(&f);
  }
  std::sort(sweep_bench.begin(), sweep_bench.end(),
            [](auto* x, auto* y) { return x->sweep_bench_pos < y->sweep_bench_pos; });
  for (const PointField* f : sweep_bench) field_to_json(*f, p, j, f->sweep_bench);
  j["t_pp"] = r.pp.t.mean;
  j["speed_pp"] = r.pp.speed.mean;
  j["t_tg"] = r.tg.t.mean;
  j["speed_tg"] = r.tg.speed.mean;
  // ours
  j["run_id"] = r.run_id;
  j["point"] = r.point_index;
  j["ok"] = r.ok;
  if (!r.ok) j["error"] = r.error;
  for (const PointField& f : point_fields()) {
    if (f.json) field_to_json(f, p, j, f.json);
  }
  j["pp_phase"] = phase_json(r.pp);
  j["tg_phase"] = phase_json(r.tg);
  j["repetitions"] = r.repetitions.to_json();
  j["noise"] = r.noise;
  j["memory"] = memory_to_json(r.memory);
  if (!r.cotenant.empty()) j["cotenant_run"] = r.cotenant;  // "cotenant" is the axis' value
  j["extra"] = extras_to_json(r.extra);
  return j;
}

Record record_from_json(const nlohmann::json& j) {
  Record r;
  PointParams& p = r.params;
  for (const PointField& f : point_fields()) field_from_json(f, j, p);
  p.flash_attn = std::clamp(p.flash_attn, -1, 1);
  // Records written before load_mode said use_mmap/use_mlock (mmap was the default then).
  if (!j.contains("load_mode")) {
    p.load_mode = load_mode_of(j.value("use_mmap", true), j.value("use_mlock", false));
  }
  r.run_id = j.value("run_id", "");
  r.point_index = j.value("point", 0);
  r.ok = j.value("ok", true);
  r.error = j.value("error", "");
  if (j.contains("pp_phase")) {
    phase_from_json(j["pp_phase"], r.pp);
  } else {  // a plain sweep-bench line: one sample per phase
    r.pp.seconds = {j.value("t_pp", 0.0)};
    r.pp.tokens_per_s = {j.value("speed_pp", 0.0)};
    r.pp.summarize();
  }
  if (j.contains("tg_phase")) {
    phase_from_json(j["tg_phase"], r.tg);
  } else {
    r.tg.seconds = {j.value("t_tg", 0.0)};
    r.tg.tokens_per_s = {j.value("speed_tg", 0.0)};
    r.tg.summarize();
  }
  nlohmann::json reps = j.contains("repetitions") ? j["repetitions"] : nlohmann::json::object();
  if (!reps.is_object()) reps = nlohmann::json::object();
  r.repetitions.done = reps.value("done", std::max(r.pp.speed.n, r.tg.speed.n));
  r.repetitions.target_ci_pct = reps.contains("target_ci_pct") && reps["target_ci_pct"].is_number()
                                    ? reps["target_ci_pct"].get<double>()
                                    : 0.0;
  r.repetitions.target_mde_pct =
      reps.contains("target_mde_pct") && reps["target_mde_pct"].is_number()
          ? reps["target_mde_pct"].get<double>()
          : 0.0;
  r.repetitions.target_met = reps.value("target_met", true);
  if (j.contains("noise") && j["noise"].is_object()) r.noise = j["noise"];
  if (j.contains("memory")) r.memory = memory_from_json(j["memory"]);
  if (j.contains("cotenant_run") && j["cotenant_run"].is_object()) r.cotenant = j["cotenant_run"];
  if (j.contains("extra")) r.extra = extras_from_json(j["extra"]);
  return r;
}

}  // namespace moesweep
