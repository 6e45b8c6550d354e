#include "sweep/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "model/quant_types.hpp"
#include "model/twin_spec.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

bool quantized(const std::string& type) {
  return type != "f32" && type != "f16" && type != "bf16";
}

std::string context_rule_violation(const ContextParams& c) {
  if (quantized(c.type_v) && !c.flash_attn)
    return fmt::format(
        "-ctv {} needs flash attention (-fa on): the engine cannot create a quantized V cache "
        "without it",
        c.type_v);
  if (c.n_ubatch > c.n_batch)
    return fmt::format("-ub {} > -b {}: ubatch must not exceed batch", c.n_ubatch, c.n_batch);
  return "";
}

TwinSpec twin_spec_of(const ModelChoice& choice, const SweepSpec& spec) {
  TwinSpec t;
  t.profile =
      scale_profile(load_model_profile(choice.twin_profile), spec.twin_scale, spec.twin_overrides);
  const ShapeOverrides& o = spec.twin_overrides;
  const bool custom = o.layers || o.hidden || o.heads || o.expert_ff || o.dense_ff || o.vocab ||
                      o.experts || o.experts_used;
  t.scale = custom ? spec.twin_scale + "+custom" : spec.twin_scale;
  t.quant = find_quant_type(choice.quant).name;  // refuses an unknown type before anything runs
  t.seed = spec.twin_seed;
  return t;
}

}  // namespace

std::string model_display_name(const ModelChoice& choice, const SweepSpec& spec) {
  if (!choice.file.empty()) return std::filesystem::path(choice.file).filename().string();
  return twin_spec_of(choice, spec).file_stem();
}

Plan make_plan(const SweepSpec& spec, int logical_cpus, bool dry_run) {
  Plan plan;
  plan.spec = spec;
  // Thread configurations (switched on a live context).
  std::vector<ThreadSettings> threads;
  for (const std::string& mask : spec.cpu_masks)
    for (int t : spec.threads) {
      const std::vector<int> tbs =
          spec.threads_batch.empty() ? std::vector<int>{t} : spec.threads_batch;
      for (int tb : tbs) {
        for (int n : {t, tb})
          if (n > logical_cpus && dry_run && !spec.allow_oversubscribe) {
            const std::string w = fmt::format(
                "{} threads exceed this machine's {} logical CPUs: a real run needs "
                "a bigger machine or --allow-oversubscribe",
                n, logical_cpus);
            if (std::find(plan.warnings.begin(), plan.warnings.end(), w) == plan.warnings.end())
              plan.warnings.push_back(w);
          } else if (n > logical_cpus && !spec.allow_oversubscribe) {
            throw UserError(
                fmt::format("{} threads requested but this machine has {} logical CPUs", n,
                            logical_cpus),
                fmt::format("-t and -tb at most {}", logical_cpus),
                "lower the thread counts, or pass --allow-oversubscribe to measure it anyway");
          }
        threads.push_back({t, tb, mask, spec.cpu_strict, spec.poll});
      }
    }
  const std::vector<int> n_cpu_moe = spec.n_cpu_moe.empty() ? std::vector<int>{0} : spec.n_cpu_moe;
  int valid_contexts = 0;
  std::string last_reason;
  for (const ModelChoice& choice : spec.models) {
    if (!choice.twin_profile.empty())
      twin_spec_of(choice, spec);  // validate profile, scale, quant early
    for (int cpu_moe : n_cpu_moe) {
      ModelGroup mg;
      mg.choice = choice;
      mg.load = {choice.file,           spec.use_mmap, spec.use_mlock, spec.n_gpu_layers,
                 spec.tensor_overrides, cpu_moe,       spec.numa};
      for (int n_ctx : spec.n_ctx)
        for (int n_batch : spec.n_batch)
          for (int n_ubatch : spec.n_ubatch)
            for (const std::string& tk : spec.type_k)
              for (const std::string& tv : spec.type_v)
                for (bool fa : spec.flash_attn) {
                  ContextGroup cg;
                  cg.params = {n_ctx, n_batch, n_ubatch, tk, tv, fa};
                  cg.n_prompt = spec.n_prompt > 0 ? spec.n_prompt : n_ubatch;
                  cg.depths = spec.depths_for(n_ctx, n_ubatch);
                  cg.threads = threads;
                  for (int d : cg.depths)
                    if (d + cg.n_prompt + spec.n_gen > n_ctx) {
                      throw UserError(
                          fmt::format("depth {} + PP {} + TG {} = {} tokens do not fit in ctx {}",
                                      d, cg.n_prompt, spec.n_gen, d + cg.n_prompt + spec.n_gen,
                                      n_ctx),
                          "every depth + n-prompt + n-gen <= ctx-size",
                          fmt::format("raise -c to at least {} or lower --depths/--depth-max",
                                      d + cg.n_prompt + spec.n_gen));
                    }
                  cg.invalid_reason = context_rule_violation(cg.params);
                  if (cg.invalid_reason.empty())
                    ++valid_contexts;
                  else
                    last_reason = cg.invalid_reason;
                  mg.contexts.push_back(std::move(cg));
                }
      plan.models.push_back(std::move(mg));
    }
  }
  if (valid_contexts == 0) {
    throw UserError(
        fmt::format("no context in this sweep can be created: {}", last_reason),
        "at least one valid combination of cache types, flash attention and batch sizes",
        "change the flags as the rule says (the seeds run -ctk q8_0 -ctv q8_0 -fa on)");
  }
  // Points, in run order.
  int index = 0;
  for (size_t mi = 0; mi < plan.models.size(); ++mi) {
    const ModelGroup& mg = plan.models[mi];
    for (size_t ci = 0; ci < mg.contexts.size(); ++ci) {
      const ContextGroup& cg = mg.contexts[ci];
      for (size_t di = 0; di < cg.depths.size(); ++di)
        for (size_t k = 0; k < cg.threads.size(); ++k) {
          // A snake (1,2 then 2,1): each depth starts on the thread setting the
          // previous one ended on, saving a switch and its warm-up per depth.
          const size_t ti = di % 2 == 0 ? k : cg.threads.size() - 1 - k;
          PlannedPoint pt{index++, mi, ci, di, ti, {}};
          PointParams& p = pt.params;
          p.model_path = mg.choice.file;
          p.model_name = model_display_name(mg.choice, spec);
          p.quant = mg.choice.quant;
          p.use_mmap = spec.use_mmap;
          p.use_mlock = spec.use_mlock;
          p.n_gpu_layers = spec.n_gpu_layers;
          std::string ot;
          for (const std::string& o : spec.tensor_overrides) ot += (ot.empty() ? "" : ";") + o;
          if (mg.load.n_cpu_moe > 0)
            ot += fmt::format("{}n-cpu-moe={}", ot.empty() ? "" : ";", mg.load.n_cpu_moe);
          p.tensor_overrides = ot;
          p.n_ctx = cg.params.n_ctx;
          p.n_batch = cg.params.n_batch;
          p.n_ubatch = cg.params.n_ubatch;
          p.type_k = cg.params.type_k;
          p.type_v = cg.params.type_v;
          p.flash_attn = cg.params.flash_attn;
          const ThreadSettings& ts = cg.threads[ti];
          p.n_threads = ts.n_threads;
          p.n_threads_batch = ts.n_threads_batch;
          p.cpu_mask = ts.cpu_mask;
          p.cpu_strict = ts.strict;
          p.poll = ts.poll;
          p.numa = spec.numa;
          p.pp = cg.n_prompt;
          p.tg = spec.n_gen;
          p.n_kv = cg.depths[di];
          plan.points.push_back(std::move(pt));
        }
    }
  }
  return plan;
}

nlohmann::json Plan::summary() const {
  int64_t timed_tokens = 0, fill_tokens = 0, contexts = 0, switches = 0;
  for (const ModelGroup& mg : models)
    for (const ContextGroup& cg : mg.contexts) {
      if (!cg.invalid_reason.empty()) continue;
      ++contexts;
      for (size_t i = 0; i < cg.depths.size(); ++i) {
        const int prev = i == 0 ? 0 : cg.depths[i - 1];
        const bool by_pp = i > 0 && cg.depths[i] == prev + cg.n_prompt;  // kv_walk.hpp
        if (cg.depths[i] > prev && !by_pp) fill_tokens += cg.depths[i] - prev;
      }
      switches += 1 + static_cast<int64_t>(cg.depths.size() * (cg.threads.size() - 1));
      timed_tokens += static_cast<int64_t>(cg.depths.size() * cg.threads.size()) *
                      spec.repetitions * (cg.n_prompt + spec.n_gen);
    }
  return {{"points", points.size()},      {"model_loads", models.size()},
          {"contexts", contexts},         {"thread_switches", switches},
          {"timed_tokens", timed_tokens}, {"fill_tokens", fill_tokens}};
}

}  // namespace moesweep
