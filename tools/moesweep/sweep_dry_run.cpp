#include "sweep_dry_run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "counters/sim_backend.hpp"
#include "engine/engine_util.hpp"
#include "model/twin_builder.hpp"
#include "model/twin_space.hpp"
#include "sweep/cotenant.hpp"
#include "sweep/mde_estimate.hpp"
#include "sweep/memory_plan.hpp"
#include "sweep/run_storage.hpp"
#include "util/error.hpp"
#include "util/terminal_text.hpp"

namespace moesweep::cli {
namespace {

// "..20 until the 95% CI is within 2%", "..20 until each cell's MDE is within 5%".
std::string repetitions_text(const SweepSpec& spec) {
  std::string out;
  if (spec.target_ci_pct > 0)
    out += fmt::format(" until the 95% CI is within {}%", spec.target_ci_pct);
  if (spec.target_mde_pct > 0)
    out += fmt::format("{} until each cell's MDE is within {}%", out.empty() ? "" : " and",
                       spec.target_mde_pct);
  if (out.empty()) return "";
  return fmt::format(
      "..{}{}{}", spec.max_repetitions, out,
      spec.max_time_s > 0 ? fmt::format(" (--max-time {:g} s)", spec.max_time_s) : "");
}

// The twins the run will build, and whether the disk has room for them.
void print_twin_disk(const Plan& plan) {
  const std::vector<TwinSpec> twins = twins_to_build(plan);
  if (twins.empty()) return;
  const TwinSpaceCheck c = check_twin_space(twins, twin_cache_dir());
  // Wrapped: the cache's path and the disk's figures make these lines as long as the
  // machine makes them (a full disk printed 207 columns).
  print_wrapped(fmt::format("twins to build: {}, about {} on disk in {} ({} free)", twins.size(),
                            gib_text(c.needed), twin_cache_dir().string(),
                            c.free ? gib_text(*c.free) : "unknown"));
  if (!c.problem.empty()) print_wrapped("warning: DOES NOT FIT ON DISK: " + c.problem);
}

// "1/1 2/2@0-3+stream": each thread setting of a context, its CPUs and co-tenant.
std::string thread_settings_text(const ContextGroup& cg) {
  std::vector<std::string> threads;
  for (size_t i = 0; i < cg.threads.size(); ++i) {
    const ThreadSettings& t = cg.threads[i];
    const std::string cotenant = i < cg.cotenants.size() ? cg.cotenants[i] : "";
    // piecewise: GCC 12 warns (-Wrestrict) on "+" + std::string inlined here
    std::string text = fmt::format("{}/{}", t.n_threads, t.n_threads_batch);
    if (!t.cpu_mask.empty()) (text += '@') += t.cpu_mask;
    if (!cotenant.empty()) text += fmt::format("+{}", cotenant_label(cotenant));
    threads.push_back(std::move(text));
  }
  return fmt::format("{}", fmt::join(threads, " "));
}

// One model group: its twin, and each context's settings, threads and memory.
void print_model_group(const ModelGroup& mg, const Plan& plan, uint64_t available) {
  const std::optional<std::filesystem::path> cached = cached_twin(mg, plan.spec);
  fmt::print("model {}{}{}\n", model_display_name(mg, plan.spec), knobs_text(mg.knobs),
             !mg.choice.file.empty() ? ""
             : cached ? fmt::format(" (twin, cached: {})", cached->filename().string())
                      : " (twin, built on first use)");
  const MemoryShape shape = memory_shape_of(mg, plan.spec);
  for (const ContextGroup& cg : mg.contexts) {
    print_wrapped(fmt::format(
        "  ctx {} b {} ub {} K {} V {} fa {}: depths {} | PP {} TG {} x{}{}{}", cg.params.n_ctx,
        cg.params.n_batch, cg.params.n_ubatch, cg.params.type_k, cg.params.type_v,
        flash_attn_name(cg.params.flash_attn), fmt::join(cg.depths, ","), cg.n_prompt,
        plan.spec.n_gen, plan.spec.repetitions, repetitions_text(plan.spec),
        cg.invalid_reason.empty() ? "" : "  INVALID: " + cg.invalid_reason));
    fmt::print("    threads (gen/batch): {}\n", thread_settings_text(cg));
    const Footprint need = context_footprint(shape, cg.params, mg.load.load_mode);
    const std::string problem = footprint_problem(need, available, false);
    print_wrapped(fmt::format("    memory ({}): {}", shape.model_source, footprint_text(need)));
    if (!problem.empty()) print_wrapped("    DOES NOT FIT: " + problem);
  }
}

}  // namespace

int print_dry_run(const Plan& plan, const std::string& origin, const SampleTimeChoice& samples) {
  const PlanSummary s = plan.summary();
  print_wrapped(
      fmt::format("plan from {}: {} points, {} model load(s), {} context(s), {} thread switch(es)",
                  origin, s.points, s.model_loads, s.contexts, s.thread_switches));
  if (!s.engines.empty())
    fmt::print("engines {}: {}\n", fmt::join(s.engines, ", "), s.engine_order);
  const uint64_t available = available_memory_bytes();
  for (const ModelGroup& mg : plan.models) print_model_group(mg, plan, available);
  print_twin_disk(plan);
  if (samples.seconds > 0)
    print_wrapped(fmt::format(
        "samples: at least {:.3g} s each, the call of -n (-p) tokens repeated at its depth ({})",
        samples.seconds, samples.source));
  else
    print_wrapped("samples: " + samples.source);
  for (const std::string& w : plan.warnings) print_wrapped("warning: " + w);
  fmt::print("cost: {} timed tokens + {} fill tokens", s.timed_tokens, s.fill_tokens);
  Plan timed = plan;  // the samples' length as this run chose it
  timed.spec.min_sample_time_s = samples.seconds;
  const auto estimate = estimate_seconds(timed);
  if (estimate)
    fmt::print(", about {:.0f} s at -r {} at the speeds of earlier runs of these models\n",
               *estimate, plan.spec.repetitions);
  else
    fmt::print("; no earlier run of these models to estimate the time from\n");
  if (plan.spec.counters == "sim")  // the engine runs under valgrind
    fmt::print(
        "--counters sim: about {:.0f}x slower under valgrind{}\n", counters::kSimulatedSlowdown,
        estimate ? fmt::format(", about {:.0f} s", *estimate * counters::kSimulatedSlowdown) : "");
  fmt::print("{}", target_mde_line(timed, SpeedTable::from_runs("results/runs")));
  return exit_code::kOk;
}

}  // namespace moesweep::cli
