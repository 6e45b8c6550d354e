#include "sweep/plan.hpp"

#include <unistd.h>
#include "engine/engine_util.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <set>

#include <sched.h>

#include "engine/context_rules.hpp"
#include "engine/engine.hpp"
#include "engine/engine_limits.hpp"
#include "engine/engine_registry.hpp"
#include "hw/resctrl.hpp"
#include "model/twin_spec.hpp"
#include "sweep/cotenant.hpp"
#include "sweep/spec_limits.hpp"
#include "sweep/twin_engines.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

// The CPUs a threadpool of this process can be pinned to: those it may run
// on, below the engine's mask size. The engine silently drops any other CPU
// of a mask (running unpinned) while the record would name the mask.
std::vector<bool> allowed_cpus() {
  std::vector<bool> allowed;
  const int n = engine_limits::kMaxThreads;
  cpu_set_t* set = CPU_ALLOC(n);
  const size_t size = CPU_ALLOC_SIZE(n);
  CPU_ZERO_S(size, set);
  if (sched_getaffinity(0, size, set) == 0)
    for (int cpu = 0; cpu < n; ++cpu) allowed.push_back(CPU_ISSET_S(cpu, size, set));
  CPU_FREE(set);
  return allowed;
}

std::string cpu_list_text(const std::vector<bool>& mask) {
  std::string out;
  for (size_t i = 0; i < mask.size(); ++i) {
    if (!mask[i] || (i > 0 && mask[i - 1])) continue;
    size_t j = i;
    while (j + 1 < mask.size() && mask[j + 1]) ++j;
    out += fmt::format("{}{}", out.empty() ? "" : ",",
                       j == i ? fmt::format("{}", i) : fmt::format("{}-{}", i, j));
  }
  return out;
}

// A mask must parse, name at least one CPU, and name only CPUs this process
// may use (a warning in a dry run, which may plan for another machine).
void check_cpu_mask(const std::string& text, bool dry_run, std::vector<std::string>& warnings) {
  std::vector<bool> mask;
  const bool parsed = parse_cpu_mask(text, mask);
  if (!parsed || std::find(mask.begin(), mask.end(), true) == mask.end()) {
    throw UserError(
        fmt::format("--cpu-mask '{}' {}", text, parsed ? "names no CPU" : "is not a CPU mask"),
        "a hex mask like 0xff or a CPU list like 0-7,16 naming at least one CPU",
        "fix -C, or leave it out to run unpinned");
  }
  const std::vector<bool> allowed = allowed_cpus();
  std::vector<bool> foreign(mask.size(), false);
  for (size_t cpu = 0; cpu < mask.size(); ++cpu)
    foreign[cpu] = mask[cpu] && (cpu >= allowed.size() || !allowed[cpu]);
  if (std::find(foreign.begin(), foreign.end(), true) == foreign.end()) return;
  const std::string problem =
      fmt::format("--cpu-mask '{}' names CPU(s) {} that this process cannot be pinned to", text,
                  cpu_list_text(foreign));
  const std::string have = fmt::format("CPUs this process may use: {}", cpu_list_text(allowed));
  if (dry_run) {
    warnings.push_back(fmt::format("{} ({}); a real run refuses it", problem, have));
    return;
  }
  throw UserError(problem, have, "pin to CPUs this machine has (see `moesweep hw`)");
}

struct Sizes {
  int n_ctx, n_batch, n_ubatch;
};

// (ctx, batch, ubatch) in plan order; without -c each ubatch gets the context
// its deepest depth needs (SweepSpec::ctx_for).
std::vector<Sizes> context_sizes(const SweepSpec& spec) {
  std::vector<Sizes> out;
  if (!spec.n_ctx.empty()) {
    for (int n_ctx : spec.n_ctx)
      for (int n_batch : spec.n_batch)
        for (int n_ubatch : spec.n_ubatch) out.push_back({n_ctx, n_batch, n_ubatch});
    return out;
  }
  for (int n_batch : spec.n_batch)
    for (int n_ubatch : spec.n_ubatch)
      out.push_back({spec.ctx_for(n_ubatch)[0], n_batch, n_ubatch});
  return out;
}

// Before the points are expanded: a plan of millions of points would take
// minutes and gigabytes just to list.
void check_plan_size(const Plan& plan) {
  int64_t points = 0;
  for (const ModelGroup& mg : plan.models)
    for (const ContextGroup& cg : mg.contexts)
      points += static_cast<int64_t>(cg.depths.size() * cg.threads.size());
  if (points > kMaxPoints) {
    throw UserError(
        fmt::format("this sweep has {} points (contexts x depths x thread settings)", points),
        fmt::format("at most {} points per run", kMaxPoints),
        "split it into several runs, or use fewer depths (--depth-step) or thread counts");
  }
}

}  // namespace

TwinSpec twin_spec_of(const ModelGroup& group, const SweepSpec& spec) {
  return with_layout(twin_spec_of(group.choice, group.knobs, spec), group.twin_layout);
}

std::string model_display_name(const ModelGroup& group, const SweepSpec& spec) {
  const ModelChoice& choice = group.choice;
  if (!choice.file.empty()) return std::filesystem::path(choice.file).filename().string();
  return twin_spec_of(group, spec).file_stem();
}

std::string model_display_name(const ModelChoice& choice, const SweepSpec& spec) {
  ModelGroup group;
  group.choice = choice;
  return model_display_name(group, spec);
}

namespace {

// A co-tenant needs CPUs the point leaves free (refused, or warned on a dry run).
void check_cotenant_cpus(const SweepSpec& spec, const std::string& mask, bool dry_run,
                         std::vector<std::string>& warnings) {
  std::string why;
  if (spec.cotenants == std::vector<std::string>{""} ||
      !cotenant_cpus_for(mask, spec.cotenant_cpus, &why).empty())
    return;
  if (dry_run) {
    warnings.push_back(fmt::format("--cotenant: {}", why));
    return;
  }
  throw UserError(fmt::format("--cotenant: {}", why), "a co-tenant on CPUs the point does not use",
                  "pin the point with -C (e.g. -C 0 -t 1 on 2 CPUs) or give --cotenant-cpus");
}

// The thread configurations (switched on a live context), every cpu mask x
// -t x -tb x co-tenant (its kind in `cotenants`, one per configuration);
// threads beyond the machine refused (warned on a dry run).
std::vector<ThreadSettings> thread_settings(const SweepSpec& spec, int logical_cpus, bool dry_run,
                                            std::vector<std::string>& warnings,
                                            std::vector<std::string>& cotenants) {
  std::vector<ThreadSettings> threads;
  std::set<std::string> warned;  // a set: a list of thousands of thread counts is no hang
  for (const std::string& mask : spec.cpu_masks) {
    if (!mask.empty()) check_cpu_mask(mask, dry_run, warnings);
    check_cotenant_cpus(spec, mask, dry_run, warnings);
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
            if (warned.insert(w).second) warnings.push_back(w);
          } else if (n > logical_cpus && !spec.allow_oversubscribe) {
            throw UserError(
                fmt::format("{} threads requested but this machine has {} logical CPUs", n,
                            logical_cpus),
                fmt::format("-t and -tb at most {}", logical_cpus),
                "lower the thread counts, or pass --allow-oversubscribe to measure it anyway");
          }
        for (const std::string& cotenant : spec.cotenants) {
          threads.push_back({t, tb, mask, spec.cpu_strict, spec.poll});
          cotenants.push_back(cotenant);
        }
      }
    }
  }
  return threads;
}

// Every depth + PP + TG fits in the context (UserError otherwise).
void check_depths_fit(const ContextGroup& cg, const SweepSpec& spec) {
  for (int d : cg.depths) {
    const int64_t need = int64_t{d} + cg.n_prompt + spec.n_gen;
    if (need > cg.params.n_ctx) {
      throw UserError(fmt::format("depth {} + PP {} + TG {} = {} tokens do not fit in ctx {}", d,
                                  cg.n_prompt, spec.n_gen, need, cg.params.n_ctx),
                      "every depth + n-prompt + n-gen <= ctx-size",
                      fmt::format("raise -c to at least {}, leave -c out (then the context "
                                  "is sized to fit), or lower --depths/--depth-max",
                                  need));
    }
  }
}

// Every context of one model group: sizes x K type x V type x flash attention.
// Counts the valid ones and keeps the last rule broken.
void add_contexts(ModelGroup& mg, const SweepSpec& spec, const std::vector<ThreadSettings>& threads,
                  const std::vector<std::string>& cotenants, int& valid_contexts,
                  std::string& last_reason) {
  for (const Sizes& z : context_sizes(spec))
    for (const std::string& tk : spec.type_k)
      for (const std::string& tv : spec.type_v)
        for (int fa : spec.flash_attn) {
          ContextGroup cg;
          cg.params = {z.n_ctx, z.n_batch, z.n_ubatch, tk, tv, fa, {}};
          cg.n_prompt = spec.n_prompt > 0 ? spec.n_prompt : z.n_ubatch;
          cg.depths = spec.depths_for(z.n_ctx, z.n_ubatch);
          cg.threads = threads;
          cg.cotenants = cotenants;
          check_depths_fit(cg, spec);
          cg.invalid_reason = context_rule_violation(cg.params);
          if (cg.invalid_reason.empty())
            ++valid_contexts;
          else
            last_reason = cg.invalid_reason;
          mg.contexts.push_back(std::move(cg));
        }
}

// One point's parameters: its model group's, context's, depth's and thread setting's.
PointParams point_params(const SweepSpec& spec, const ModelGroup& mg, const std::string& model_name,
                         const ContextGroup& cg, size_t di, size_t ti) {
  PointParams p;
  p.model_path = mg.choice.file;
  p.model_name = model_name;
  p.quant = mg.choice.quant;
  p.load_mode = spec.load_mode;
  p.n_gpu_layers = spec.n_gpu_layers;
  std::string ot;
  for (const std::string& o : spec.tensor_overrides) ot += (ot.empty() ? "" : ";") + o;
  if (mg.load.n_cpu_moe > 0)
    ot += fmt::format("{}n-cpu-moe={}", ot.empty() ? "" : ";", mg.load.n_cpu_moe);
  p.tensor_overrides = ot;
  p.experts = mg.knobs.experts;
  p.expert_ff = mg.knobs.expert_ff;
  p.routing_skew = mg.knobs.routing_skew;
  p.block = mg.block;
  p.l3_ways = mg.l3_ways;
  p.mem_bw_percent = mg.mem_bw_percent;
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
  p.cotenant = ti < cg.cotenants.size() ? cg.cotenants[ti] : "";
  p.pp = cg.n_prompt;
  p.tg = spec.n_gen;
  p.n_kv = cg.depths[di];
  return p;
}

// --engine names to workers (UserError for one that is not registered).
}  // namespace

EngineChoice own_engine_choice() {
  EngineChoice e;
  e.worker = default_worker_path();
  return e;
}

namespace {

// A registered engine's worker is its registry folder's: one that is gone is
// that engine's to fix (registered again), named, before anything runs.
void check_worker_present(const RegisteredEngine& e, const std::filesystem::path& registry) {
  if (e.kind == kExecEngineKind || e.name == kDefaultEngineName) return;
  if (::access(e.worker.c_str(), X_OK) == 0) return;
  throw UserError(fmt::format("engine '{}': its worker '{}' is missing or not executable", e.name,
                              e.worker.string()),
                  "the moesweep-worker that `moesweep engine add` built for it",
                  fmt::format("register it again (moesweep engine add {} ..., after removing {})",
                              e.name, (registry / e.name).string()));
}

// ik_llama.cpp's switches go to the engines of that kind; a sweep where no
// engine has them refuses them (UserError) instead of ignoring them.
std::vector<EngineChoice> resolve_engines(const std::vector<std::string>& names,
                                          const EngineKnobs& knobs) {
  std::vector<EngineChoice> out;
  if (names.empty()) {
    out.push_back(own_engine_choice());
    fill_engine_reads(out.back(), default_engine());
  } else {
    const std::filesystem::path registry = engine_registry_dir();
    for (const std::string& name : names) {
      const RegisteredEngine e = find_engine(registry, name);
      check_worker_present(e, registry);
      EngineChoice c;
      c.name = name;
      c.worker = e.worker;
      c.build_flags = e.build_flags;
      c.kind = e.kind;
      c.exec = e.exec;
      c.exec_tool = e.exec_tool;
      c.release = e.release;
      c.commit = e.commit;
      fill_engine_reads(c, e);
      out.push_back(std::move(c));
    }
  }
  bool taken = false;
  for (EngineChoice& e : out)
    if (e.kind == kIkLlamaKind) e.knobs = knobs, taken = true;
  if (knobs.any() && !taken) {
    const std::string flag = first_knob_flag(knobs);
    throw UserError(
        fmt::format(
            "{} is an ik_llama.cpp setting, and none of this sweep's engines is "
            "ik_llama.cpp ({})",
            flag, names.empty() ? "default: llama.cpp" : fmt::format("{}", fmt::join(names, ", "))),
        "an ik_llama.cpp engine in --engine (moesweep engine list shows each one's kind)",
        fmt::format("register one (moesweep engine add ik --ik-llama DIR) and add it to --engine, "
                    "or drop {}",
                    flag));
  }
  return out;
}

// The points, in run order.
void add_points(Plan& plan) {
  int index = 0;
  for (size_t mi = 0; mi < plan.models.size(); ++mi) {
    const ModelGroup& mg = plan.models[mi];
    const std::string model_name = model_display_name(mg, plan.spec);  // reads a profile
    for (size_t ci = 0; ci < mg.contexts.size(); ++ci) {
      const ContextGroup& cg = mg.contexts[ci];
      for (size_t di = 0; di < cg.depths.size(); ++di)
        for (size_t k = 0; k < cg.threads.size(); ++k) {
          // A snake (1,2 then 2,1): each depth starts on the thread setting the
          // previous one ended on, saving a switch and its warm-up per depth.
          const size_t ti = di % 2 == 0 ? k : cg.threads.size() - 1 - k;
          for (size_t e = 0; e < plan.engines.size(); ++e) {
            if (std::count(mg.skip_engines.begin(), mg.skip_engines.end(), e)) continue;
            PointParams params = point_params(plan.spec, mg, model_name, cg, di, ti);
            params.engine = plan.engines[e].name;
            params.engine_opts = knobs_text(plan.engines[e].knobs);
            plan.points.push_back({index++, mi, ci, di, ti, e, std::move(params)});
          }
        }
    }
  }
}

}  // namespace

Plan make_plan(const SweepSpec& spec, int logical_cpus, bool dry_run) {
  Plan plan;
  plan.spec = spec;
  plan.engines = resolve_engines(spec.engines, spec.engine_knobs);
  if (!spec.twin_for.empty()) plan.twin_for = resolve_engines(spec.twin_for, {});
  std::vector<std::string> cotenants;
  const std::vector<ThreadSettings> threads =
      thread_settings(spec, logical_cpus, dry_run, plan.warnings, cotenants);
  const std::vector<int> n_cpu_moe = spec.n_cpu_moe.empty() ? std::vector<int>{0} : spec.n_cpu_moe;
  // Cache and bandwidth allocation (resctrl): refused here, before anything
  // runs, where the kernel does not offer it.
  if (!spec.l3_ways.empty() || !spec.mem_bw_percent.empty())
    check_resctrl_axes(probe_resctrl(), spec.l3_ways, spec.mem_bw_percent);
  std::vector<std::array<int, 3>> load_axes;  // n-cpu-moe, l3 ways, bandwidth percent
  for (int cpu_moe : n_cpu_moe)
    for (int ways : spec.l3_ways.empty() ? std::vector<int>{0} : spec.l3_ways)
      for (int bw : spec.mem_bw_percent.empty() ? std::vector<int>{0} : spec.mem_bw_percent)
        load_axes.push_back({cpu_moe, ways, bw});
  int valid_contexts = 0;
  std::string last_reason;
  // One twin per knob combination (twin_axes.hpp); validates profile, scale, quant early.
  std::vector<std::pair<ModelChoice, TwinKnobs>> twins;
  for (const ModelChoice& choice : spec.models)
    for (const TwinKnobs& knobs : twin_knobs_for(choice, spec, plan.warnings, plan.auto_l3))
      twins.emplace_back(choice, knobs);
  // --blocks N: the twins N times over, each block in its own random order.
  for (const auto& [index, block] : block_order(twins.size(), spec.blocks, spec.block_seed)) {
    const auto& [choice, knobs] = twins[index];
    for (const auto& [cpu_moe, ways, bw] : load_axes) {
      ModelGroup mg;
      mg.choice = choice;
      mg.knobs = knobs;
      mg.block = block;
      mg.l3_ways = ways;
      mg.mem_bw_percent = bw;
      mg.load = {
          choice.file, spec.load_mode, spec.n_gpu_layers, spec.tensor_overrides, cpu_moe, spec.numa,
          {}};
      add_contexts(mg, spec, threads, cotenants, valid_contexts, last_reason);
      plan.models.push_back(std::move(mg));
    }
  }
  if (valid_contexts == 0) {
    throw UserError(
        fmt::format("no context in this sweep can be created: {}", last_reason),
        "at least one valid combination of cache types, flash attention and batch sizes",
        "change the flags as the rule says (the seeds run -ctk q8_0 -ctv q8_0 -fa on)");
  }
  choose_twin_layouts(plan);
  check_plan_size(plan);
  add_points(plan);
  return plan;
}

PlanSummary Plan::summary() const {
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
  const int64_t n_engines = static_cast<int64_t>(std::max<size_t>(1, engines.size()));
  PlanSummary s{.points = static_cast<int64_t>(points.size()),
                .model_loads = static_cast<int64_t>(models.size()) * n_engines,
                .contexts = contexts * n_engines,
                .thread_switches = switches * n_engines,
                .timed_tokens = timed_tokens * n_engines,
                .fill_tokens = fill_tokens * n_engines};
  if (n_engines > 1) {
    for (const EngineChoice& e : engines) s.engines.push_back(e.name);
    s.engine_order = fmt::format(
        "interleaved repetition by repetition, {}; every engine's worker holds the "
        "model at once (shared page cache with mmap)",
        n_engines == 2 ? "in ABBA order" : "each round in a random order (--block-seed)");
  }
  return s;
}

}  // namespace moesweep
