#include "results/record.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace moesweep {

std::string PointParams::key_string() const {
  return fmt::format(
      "model={};quant={};load_mode={};ngl={};ot={};n_ctx={};n_batch={};n_ubatch={};"
      "type_k={};type_v={};fa={};threads={};threads_batch={};cpu_mask={};strict={};poll={};"
      "numa={};pp={};tg={};n_kv={}",
      model_name, quant, load_mode, n_gpu_layers, tensor_overrides, n_ctx, n_batch, n_ubatch,
      type_k, type_v, flash_attn, n_threads, n_threads_batch, cpu_mask, cpu_strict, poll, numa, pp,
      tg, n_kv);
}

std::string flash_attn_name(int flash_attn) {
  return flash_attn < 0 ? "auto" : flash_attn == 0 ? "off" : "on";
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
  return {{"samples_s", p.seconds},
          {"samples_ts", p.tokens_per_s},
          {"t", stats_json(p.t)},
          {"speed", stats_json(p.speed)},
          {"counters", p.counters}};
}

void phase_from_json(const nlohmann::json& j, PhaseResult& p) {
  if (!j.is_object()) return;
  p.seconds = j.value("samples_s", std::vector<double>{});
  p.tokens_per_s = j.value("samples_ts", std::vector<double>{});
  p.counters = j.value("counters", nlohmann::json::object());
  p.summarize();
}

}  // namespace

nlohmann::json RepetitionOutcome::to_json() const {
  nlohmann::json j = {{"done", done}, {"target_ci_pct", nullptr}, {"target_met", target_met}};
  if (target_ci_pct > 0) j["target_ci_pct"] = target_ci_pct;
  return j;
}

nlohmann::ordered_json record_to_json(const Record& r) {
  const PointParams& p = r.params;
  nlohmann::ordered_json j;
  // sweep-bench's keys, same names and meaning (times are means, seconds).
  j["n_kv_max"] = p.n_ctx;
  j["n_batch"] = p.n_batch;
  j["n_ubatch"] = p.n_ubatch;
  j["flash_attn"] = p.flash_attn;  // llama-bench's integer: -1 auto, 0, 1
  j["n_gpu_layers"] = p.n_gpu_layers;
  j["n_threads"] = p.n_threads;
  j["n_threads_batch"] = p.n_threads_batch;
  j["pp"] = p.pp;
  j["tg"] = p.tg;
  j["n_kv"] = p.n_kv;
  j["t_pp"] = r.pp.t.mean;
  j["speed_pp"] = r.pp.speed.mean;
  j["t_tg"] = r.tg.t.mean;
  j["speed_tg"] = r.tg.speed.mean;
  // ours
  j["run_id"] = r.run_id;
  j["point"] = r.point_index;
  j["ok"] = r.ok;
  if (!r.ok) j["error"] = r.error;
  j["model"] = p.model_name;
  j["model_path"] = p.model_path;
  j["model_type"] = p.model_type;
  j["quant"] = p.quant;
  j["n_ctx"] = p.n_ctx;
  j["type_k"] = p.type_k;
  j["type_v"] = p.type_v;
  j["load_mode"] = p.load_mode;
  j["tensor_overrides"] = p.tensor_overrides;
  j["cpu_mask"] = p.cpu_mask;
  j["cpu_strict"] = p.cpu_strict;
  j["poll"] = p.poll;
  j["numa"] = p.numa;
  j["pp_phase"] = phase_json(r.pp);
  j["tg_phase"] = phase_json(r.tg);
  j["repetitions"] = r.repetitions.to_json();
  j["noise"] = r.noise;
  j["extra"] = r.extra;
  return j;
}

Record record_from_json(const nlohmann::json& j) {
  Record r;
  PointParams& p = r.params;
  p.n_ctx = j.value("n_kv_max", 0);
  p.n_batch = j.value("n_batch", 0);
  p.n_ubatch = j.value("n_ubatch", 0);
  p.flash_attn = std::clamp(j.value("flash_attn", 0), -1, 1);
  p.n_gpu_layers = j.value("n_gpu_layers", 0);
  p.n_threads = j.value("n_threads", 0);
  p.n_threads_batch = j.value("n_threads_batch", 0);
  p.pp = j.value("pp", 0);
  p.tg = j.value("tg", 0);
  p.n_kv = j.value("n_kv", 0);
  r.run_id = j.value("run_id", "");
  r.point_index = j.value("point", 0);
  r.ok = j.value("ok", true);
  r.error = j.value("error", "");
  p.model_name = j.value("model", "");
  p.model_path = j.value("model_path", "");
  p.model_type = j.value("model_type", "");
  p.quant = j.value("quant", "");
  p.type_k = j.value("type_k", "f16");
  p.type_v = j.value("type_v", "f16");
  // Records written before load_mode said use_mmap/use_mlock (mmap was the default then).
  p.load_mode = j.contains("load_mode")
                    ? j.value("load_mode", "auto")
                    : load_mode_of(j.value("use_mmap", true), j.value("use_mlock", false));
  p.tensor_overrides = j.value("tensor_overrides", "");
  p.cpu_mask = j.value("cpu_mask", "");
  p.cpu_strict = j.value("cpu_strict", false);
  p.poll = j.value("poll", 50);
  p.numa = j.value("numa", "disabled");
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
  r.repetitions.target_met = reps.value("target_met", true);
  if (j.contains("noise") && j["noise"].is_object()) r.noise = j["noise"];
  r.extra = j.value("extra", nlohmann::json::object());
  return r;
}

}  // namespace moesweep
