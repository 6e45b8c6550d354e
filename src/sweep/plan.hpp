#pragma once
// Plan: the spec expanded into groups ordered to minimise reloads: points
// grouped by model-level key, then context-level key; within a context one KV
// walk over the depths, every thread configuration measured at each depth, in
// a snake (1,2 at one depth, 2,1 at the next) so consecutive depths share one.
#include <filesystem>
#include <string>
#include <vector>

#include "engine/engine_types.hpp"
#include "model/twin_spec.hpp"
#include "results/record.hpp"
#include "results/run_meta.hpp"
#include "sweep/sweep_spec.hpp"

namespace moesweep {

struct ContextGroup {
  ContextParams params;
  std::vector<int> depths;
  int n_prompt = 0;            // PP tokens per measurement
  std::string invalid_reason;  // set: every point of this group fails with it
  std::vector<ThreadSettings> threads;
  std::vector<std::string>
      cotenants;  // per entry of `threads`: its co-tenant ("" none; may be empty)
};

struct ModelGroup {
  ModelChoice choice;
  TwinKnobs knobs;         // the twin axes' values of this group (twin_axes.hpp)
  int block = 0;           // --blocks: 1..N, each block every twin once in its own order
  int l3_ways = 0;         // resctrl allocation for this group's points; 0 = none
  int mem_bw_percent = 0;  // (hw/resctrl.hpp)
  ModelLoadParams load;    // load.path empty for a twin until it is resolved
  std::vector<ContextGroup> contexts;
  TwinLayout twin_layout;            // the newest layout all its engines read (twin_layout.hpp)
  std::vector<size_t> skip_engines;  // into Plan::engines: engines that cannot load this twin
};

// An engine build the points are measured on (sweep --engine a,b). Every
// point is planned once per engine; the runner interleaves the engines'
// walks over each context repetition by repetition in ABBA order, each engine in its
// own worker holding the model at the same time.
struct EngineChoice {
  std::string name;                      // "" without --engine (this moesweep's own worker)
  std::filesystem::path worker;          // its moesweep-worker
  std::vector<std::string> build_flags;  // what `engine add` built it with (records carry them)
  std::string kind = "llama.cpp";        // llama.cpp, ik_llama.cpp or exec
  EngineKnobs knobs;  // the sweep's -fmoe/-rtr/-mla/-amb on an ik_llama.cpp engine; none otherwise
  // kind exec (engine add --exec): another program's benchmark binary, run once
  // per context and thread setting, its output ingested (engine/exec_tool.hpp);
  // no worker. Its release and commit as `engine add` read them.
  std::filesystem::path exec;
  std::string exec_tool, release, commit;
  // What its loader reads (EngineFacts::reads); unknown for another program's binary.
  std::vector<std::string> reads;
  bool reads_known = false;
  int max_experts = 0;  // routed experts per layer it loads; 0 unknown
  bool is_exec() const { return !exec.empty(); }
};

// This moesweep's own worker, the engine of a sweep without --engine.
EngineChoice own_engine_choice();

struct PlannedPoint {
  int index = 0;
  size_t model = 0, context = 0, depth = 0, thread = 0;  // indices into the plan
  size_t engine = 0;                                     // into Plan::engines
  PointParams params;  // model_path/model_name filled once the model is resolved
};

struct Plan {
  SweepSpec spec;
  std::vector<EngineChoice> engines;  // at least one
  // --twin-for: engines not measured whose loaders the twins must suit too
  std::vector<EngineChoice> twin_for;
  std::vector<ModelGroup> models;
  std::vector<PlannedPoint> points;   // in run order
  std::vector<std::string> warnings;  // e.g. oversubscription shown by --dry-run
  std::vector<AutoL3Note> auto_l3;    // --experts auto-l3's plan per twin (also in warnings)

  // The cost of the plan in work, not seconds (for --dry-run): points, model
  // loads, contexts, thread switches, timed and untimed (fill) tokens.
  // meta.json's "plan" (RunMeta::plan).
  PlanSummary summary() const;
};

// Validates and expands. Throws UserError for input that cannot run at all
// (threads beyond the cores without --allow-oversubscribe, depth beyond
// ctx, no valid context); marks single invalid combinations instead.
// dry_run: report oversubscription as a warning instead of refusing (a plan
// for a 16-core server can be inspected on a laptop).
Plan make_plan(const SweepSpec& spec, int logical_cpus, bool dry_run = false);

// The twin of a model group, in the layout its engines read.
TwinSpec twin_spec_of(const ModelGroup& group, const SweepSpec& spec);

// The model name a point carries for a twin (its cache file stem) or a file.
std::string model_display_name(const ModelGroup& group, const SweepSpec& spec);
// The same for a choice without twin axes (the twin's own experts and routing).
std::string model_display_name(const ModelChoice& choice, const SweepSpec& spec);

}  // namespace moesweep
