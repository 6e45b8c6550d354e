#include "sweep/exec_block.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <optional>
#include <tuple>

#include "engine/engine_types.hpp"
#include "engine/engine_util.hpp"
#include "engine/exec_tool.hpp"
#include "engine/timing_bounds.hpp"
#include "results/memory_fields.hpp"

namespace moesweep {
namespace {

ExecTool tool_of(const EngineChoice& e) {
  return exec_tool_from_name(e.exec_tool).value_or(ExecTool::kSweepBench);
}

ExecRequest request_of(const ExecBlock& b) {
  const ThreadSettings& ts = b.group.threads[b.thread_index];
  ExecRequest r;
  r.exe = b.engine.exec;
  r.tool = tool_of(b.engine);
  r.model = b.model_path;
  r.n_batch = b.group.params.n_batch;
  r.n_ubatch = b.group.params.n_ubatch;
  r.pp = b.group.n_prompt;
  r.tg = b.spec.n_gen;
  r.type_k = b.group.params.type_k;
  r.type_v = b.group.params.type_v;
  r.flash_attn = b.group.params.flash_attn;
  r.n_threads = ts.n_threads;
  r.n_threads_batch = ts.n_threads_batch;
  r.repetitions = b.spec.repetitions;
  r.no_mmap = b.spec.load_mode == "none";
  for (const PlannedPoint* p : b.points) r.depths.push_back(p->params.n_kv);
  return r;
}

// Why the tool cannot measure what the plan asks of every point of the
// block ("" = it can).
std::string block_problem(const ExecBlock& b, const ExecRequest& r) {
  const std::string tool = exec_tool_name(r.tool);
  const ThreadSettings& ts = b.group.threads[b.thread_index];
  if (!ts.cpu_mask.empty() || ts.strict)
    return fmt::format("{} runs as another program here: moesweep does not pass a CPU mask to it",
                       tool);
  if (!b.spec.tensor_overrides.empty() || !b.spec.n_cpu_moe.empty())
    return fmt::format("-ot/--n-cpu-moe are not passed to {}", tool);
  if (b.spec.load_mode != "auto" && b.spec.load_mode != "mmap" && b.spec.load_mode != "none")
    return fmt::format("-lm {} is not passed to {} (auto, mmap and none are)", b.spec.load_mode,
                       tool);
  if (!b.points.empty() && !b.points.front()->params.cotenant.empty())
    return "a co-tenant load runs beside moesweep's own worker only";
  if (!b.points.empty() &&
      (b.points.front()->params.l3_ways > 0 || b.points.front()->params.mem_bw_percent > 0))
    return "the L3/bandwidth allocation (resctrl) holds moesweep's worker threads only";
  if (b.spec.numa != "disabled")
    return fmt::format("--numa {} is not passed to {}", b.spec.numa, tool);
  if (r.tool == ExecTool::kLlamaBench && r.n_threads_batch != r.n_threads)
    return "llama-bench has one thread count for PP and TG (-tb differs from -t)";
  if (r.tool == ExecTool::kSweepBench && r.pp != r.n_ubatch)
    return fmt::format(
        "llama-sweep-bench times PP over one ubatch ({} tokens), not -p {}: set -p to -ub",
        r.n_ubatch, r.pp);
  return "";
}

std::vector<double> speeds(const ExecPhase& phase) {
  std::vector<double> out;
  for (double s : phase.seconds) out.push_back(phase.tokens / s);
  return out;
}

Record failed(const PlannedPoint& p, const std::string& why) {
  Record rec;
  rec.point_index = p.index;
  rec.params = p.params;
  rec.ok = false;
  rec.error = why;
  return rec;
}

Record ingested(const PlannedPoint& p, const ExecRow& row, const ExecRequest& r) {
  Record rec;
  rec.point_index = p.index;
  rec.params = p.params;
  for (auto [phase, from] : {std::pair{&rec.pp, &row.pp}, std::pair{&rec.tg, &row.tg}}) {
    phase->seconds = from->seconds;
    phase->tokens_per_s = speeds(*from);
    phase->summarize();
  }
  rec.repetitions.done = static_cast<int>(std::max(row.pp.seconds.size(), row.tg.seconds.size()));
  const nlohmann::json blank = exec_blanks(r.tool);
  for (const MemoryField& f : memory_fields()) rec.memory.unavailable[f.json] = blank["memory"];
  rec.extra.ingested = {{"tool", exec_tool_name(r.tool)},
                        {"command", fmt::format("{}", fmt::join(exec_argv(r), " "))},
                        {"blank", blank}};
  return rec;
}

// What the row says the tool ran against what the plan asked (D7 of issue
// 35): "" when every setting the row names is the plan's.
std::string ran_otherwise(const ExecRow& row, const ExecRequest& r, const std::string& tool) {
  const auto said = [&](const char* field, const std::string& got, const std::string& want) {
    return fmt::format("{}'s row for N_KV {} says it ran {} {}; the plan asked for {}", tool,
                       row.n_kv, field, got, want);
  };
  for (auto [field, got, want] : {std::tuple{"n_threads", row.n_threads, r.n_threads},
                                  {"n_threads_batch", row.n_threads_batch, r.n_threads_batch},
                                  {"n_batch", row.n_batch, r.n_batch},
                                  {"n_ubatch", row.n_ubatch, r.n_ubatch}})
    if (got != 0 && got != want) return said(field, std::to_string(got), std::to_string(want));
  for (auto [field, got, want] :
       {std::tuple{"type_k", &row.type_k, &r.type_k}, {"type_v", &row.type_v, &r.type_v}})
    if (!got->empty() && *got != *want) return said(field, *got, *want);
  if (!row.model.empty() && !same_file(row.model, r.model))
    return said("the model", "'" + row.model.substr(0, 300) + "'", "'" + r.model + "'");
  return "";
}

// Each time the row reports against the floor of a decode of its tokens
// (engine/timing_bounds.hpp): "" when every one is possible.
std::string impossible_times(const ExecRow& row, const ExecRequest& r, const std::string& tool) {
  for (auto [name, phase, per_step] :
       {std::tuple{"PP", &row.pp, r.n_ubatch}, std::tuple{"TG", &row.tg, 1}})
    for (double s : phase->seconds)
      if (std::string why =
              implausible_time(fmt::format("{}'s {} at N_KV {}", tool, name, row.n_kv), s,
                               phase->tokens, per_step, 0);
          !why.empty())
        return why;
  return "";
}

// The rows' times together against the tool's run by moesweep's clock:
// every repetition of every phase ran inside it.
std::string beyond_the_run(const ExecRun& run, const std::string& tool) {
  double total = 0;
  for (const ExecRow& row : run.rows)
    for (const ExecPhase* phase : {&row.pp, &row.tg})
      for (double s : phase->seconds) total += s;
  return implausible_time(fmt::format("{}'s rows together", tool), total, 1, 1, run.wall_s);
}

// The row of the point's depth, checked against what the plan asked for.
Record record_for(const PlannedPoint& p, const std::map<int, const ExecRow*>& rows,
                  const ExecRequest& r) {
  const std::string tool = exec_tool_name(r.tool);
  const auto it = rows.find(p.params.n_kv);
  if (it == rows.end())
    return failed(p, r.tool == ExecTool::kSweepBench && p.params.n_kv % r.n_ubatch != 0
                         ? fmt::format("llama-sweep-bench measures N_KV in steps of one ubatch "
                                       "({}); {} is not one of them",
                                       r.n_ubatch, p.params.n_kv)
                         : fmt::format("{} wrote no row for N_KV {}", tool, p.params.n_kv));
  const ExecRow& row = *it->second;
  if (row.pp.seconds.empty() || row.tg.seconds.empty() || row.pp.tokens != p.params.pp ||
      row.tg.tokens != p.params.tg)
    return failed(
        p, fmt::format("{} measured PP {} / TG {} tokens at N_KV {}, the plan asked for "
                       "PP {} / TG {}",
                       tool, row.pp.tokens, row.tg.tokens, row.n_kv, p.params.pp, p.params.tg));
  if (!row.conflict.empty()) return failed(p, row.conflict);
  if (std::string why = ran_otherwise(row, r, tool); !why.empty()) return failed(p, why);
  if (std::string why = impossible_times(row, r, tool); !why.empty()) return failed(p, why);
  return ingested(p, row, r);
}

}  // namespace

std::vector<Record> run_exec_block(const ExecBlock& block, const std::atomic<bool>& stop) {
  const ExecRequest request = request_of(block);
  std::vector<Record> out;
  std::string problem = block_problem(block, request);
  ExecRun run;
  if (problem.empty()) {
    try {
      run = run_exec(request, block.spec.point_timeout_s * block.points.size(), stop);
      if (stop.load()) return {};
      problem = beyond_the_run(run, exec_tool_name(request.tool));
    } catch (const std::exception& e) {  // EngineError, or a UserError on its output
      problem = e.what();
    }
  }
  std::map<int, const ExecRow*> by_depth;
  for (const ExecRow& row : run.rows) by_depth.emplace(row.n_kv, &row);
  for (const PlannedPoint* p : block.points)
    out.push_back(problem.empty() ? record_for(*p, by_depth, request) : failed(*p, problem));
  return out;
}

}  // namespace moesweep
