#pragma once
// Another engine's own benchmark binary as an engine of a sweep (`engine add
// NAME --exec PATH`): llama-sweep-bench (ik_llama.cpp's, or a fork's) or
// mainline's llama-bench, run as an external process over the plan's
// configurations, its JSONL output ingested into the same records.
//
// What such a run cannot do, compared with our worker, is left blank in its
// records with the reason (exec_blanks()), never invented:
//  - threads are not switched on a live context: each thread setting is one
//    run of the tool, which loads the model again;
//  - llama-sweep-bench times each depth once (its -nrep repeats only the first
//    depth and reports the mean), so its records have no spread and no CI;
//    llama-bench repeats every test (-r) and gives each repetition's time;
//  - no counters, memory readings or routing: they attach to our worker.
#include <atomic>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace moesweep {

enum class ExecTool { kSweepBench, kLlamaBench };

// "llama-sweep-bench" or "llama-bench": the tool's name in engine.json and records.
const char* exec_tool_name(ExecTool tool);
std::optional<ExecTool> exec_tool_from_name(const std::string& name);
// Which tool `exe` is, from its file name (llama-sweep-bench / llama-bench,
// any prefix or suffix); `named` (--exec-tool) wins. UserError (exit 2) when
// neither says, or when `exe` is not an executable file.
ExecTool detect_exec_tool(const std::filesystem::path& exe, const std::string& named);

// One run of the tool: one context of the plan at one thread setting, every
// depth of it.
struct ExecRequest {
  std::filesystem::path exe;
  ExecTool tool = ExecTool::kSweepBench;
  std::string model;
  int n_batch = 0, n_ubatch = 0;
  int pp = 0, tg = 0;
  std::vector<int> depths;  // N_KV of the wanted points
  std::string type_k = "f16", type_v = "f16";
  int flash_attn = -1;  // -1: the tool's default
  int n_threads = 0, n_threads_batch = 0;
  int repetitions = 1;  // llama-bench's -r
  bool no_mmap = false;
};

// The command line (argv[0] = exe). llama-sweep-bench walks N_KV in steps of
// one ubatch up to its -c; --sweep-stride skips to the steps the depths need.
std::vector<std::string> exec_argv(const ExecRequest& request);

// One N_KV the tool measured: each phase's tokens and the seconds of each
// repetition it reports (one mean for llama-sweep-bench).
struct ExecPhase {
  int tokens = 0;
  std::vector<double> seconds;
};
struct ExecRow {
  int n_kv = 0;
  // What the tool says it ran (0 or "": its row does not say), for the check
  // against the plan: llama-sweep-bench names the threads and batch sizes,
  // llama-bench those and the model file and cache types.
  int n_threads = 0, n_threads_batch = 0, n_batch = 0, n_ubatch = 0;
  std::string model, type_k, type_v;
  ExecPhase pp, tg;
  // Two rows for this depth (or phase) that disagree: which, by line. The
  // point fails with it rather than taking one of them.
  std::string conflict;
};

// The rows of one run's output (stdout and stderr together: llama-sweep-bench
// writes its JSONL through the log), one per depth, in depth order. Lines that
// are not the tool's JSON rows are the engine's log and skipped; a row with a
// wrong type or an impossible value, or a row that is not JSON at all (a nan
// or inf printed by the tool), is a UserError naming `origin`, the line and
// the field.
std::vector<ExecRow> parse_exec_output(ExecTool tool, const std::string& output,
                                       const std::string& origin);

// The reason for each thing an ingested record leaves blank, by field.
nlohmann::json exec_blanks(ExecTool tool);

// The tool's `--version`: "6 (abc123)"-style release and commit; empty when it
// says nothing we can read, or does not end within `timeout_s` (its tree is
// ended then, like a run's).
struct ExecVersion {
  std::string release, commit;
};
ExecVersion exec_version(const std::filesystem::path& exe, double timeout_s = 30);

// One run of the tool: its rows and how long it ran by moesweep's clock (no
// time it reports can add up to more).
struct ExecRun {
  std::vector<ExecRow> rows;
  double wall_s = 0;
};

// Runs the tool in a process tree of its own (util/process_tree.hpp): it dies
// with moesweep (PR_SET_PDEATHSIG), and the whole tree is ended on every way
// out, the tool's own end included: at the deadline (`timeout_s` > 0), on
// `stop` (no rows then), past the byte cap, or when it closes its output and
// stays. EngineError with the exit status and the output's last lines when
// it fails or times out.
ExecRun run_exec(const ExecRequest& request, double timeout_s, const std::atomic<bool>& stop);

}  // namespace moesweep
