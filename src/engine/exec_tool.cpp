// Which external tool, its command line, and what its records leave blank
// (engine/exec_tool.hpp). Its output is read in exec_output.cpp, the process
// run in exec_run.cpp.
#include "engine/exec_tool.hpp"

#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>

#include "util/error.hpp"

namespace moesweep {
namespace fs = std::filesystem;

const char* exec_tool_name(ExecTool tool) {
  return tool == ExecTool::kSweepBench ? "llama-sweep-bench" : "llama-bench";
}

std::optional<ExecTool> exec_tool_from_name(const std::string& name) {
  if (name == "llama-sweep-bench") return ExecTool::kSweepBench;
  if (name == "llama-bench") return ExecTool::kLlamaBench;
  return std::nullopt;
}

ExecTool detect_exec_tool(const fs::path& exe, const std::string& named) {
  std::error_code ec;
  if (!fs::is_regular_file(exe, ec) || access(exe.c_str(), X_OK) != 0)
    throw UserError(fmt::format("engine add --exec: '{}' is not an executable file", exe.string()),
                    "the path of a built llama-sweep-bench or llama-bench binary",
                    "build the tool (cmake --build BUILD --target llama-sweep-bench) and give "
                    "the binary's path");
  if (!named.empty()) {
    if (const auto tool = exec_tool_from_name(named)) return *tool;
    throw UserError(fmt::format("engine add: --exec-tool '{}' is not a tool moesweep reads", named),
                    "llama-sweep-bench or llama-bench", "give one of those two");
  }
  const std::string file = exe.filename().string();
  if (file.find("sweep-bench") != std::string::npos) return ExecTool::kSweepBench;
  if (file.find("llama-bench") != std::string::npos) return ExecTool::kLlamaBench;
  throw UserError(fmt::format("engine add --exec: cannot tell which tool '{}' is", file),
                  "a file named like llama-sweep-bench or llama-bench",
                  "say which with --exec-tool llama-sweep-bench|llama-bench");
}

namespace {

std::string flash_attn_word(int flash_attn) {
  return flash_attn < 0 ? "auto" : flash_attn == 0 ? "off" : "on";
}

// What both tools spell alike (llama.cpp's common flags).
std::vector<std::string> shared_argv(const ExecRequest& r) {
  std::vector<std::string> a = {r.exe.string(),
                                "-m",
                                r.model,
                                "-b",
                                std::to_string(r.n_batch),
                                "-ub",
                                std::to_string(r.n_ubatch),
                                "-n",
                                std::to_string(r.tg),
                                "-t",
                                std::to_string(r.n_threads),
                                "-ctk",
                                r.type_k,
                                "-ctv",
                                r.type_v};
  if (r.flash_attn >= 0) a.insert(a.end(), {"-fa", flash_attn_word(r.flash_attn)});
  return a;
}

// llama-sweep-bench measures N_KV = 0, s, 2s, ... with s = stride x ubatch,
// up to its -c: the largest stride that still hits every wanted depth.
std::vector<std::string> sweep_bench_argv(const ExecRequest& r) {
  int stride = 0;
  int deepest = 0;
  for (int d : r.depths) {
    if (d > 0) stride = std::gcd(stride, d / std::max(1, r.n_ubatch));
    deepest = std::max(deepest, d);
  }
  std::vector<std::string> a = shared_argv(r);
  a.insert(a.end(),
           {"-c", std::to_string(deepest + r.n_ubatch), "-tb", std::to_string(r.n_threads_batch),
            "--sweep-stride", std::to_string(std::max(1, stride)), "--output-format", "jsonl"});
  if (r.no_mmap) a.push_back("--no-mmap");
  return a;
}

std::vector<std::string> llama_bench_argv(const ExecRequest& r) {
  std::vector<std::string> a = shared_argv(r);
  a.insert(a.end(), {"-p", std::to_string(r.pp), "-d", fmt::format("{}", fmt::join(r.depths, ",")),
                     "-r", std::to_string(std::max(1, r.repetitions)), "-o", "jsonl"});
  if (r.no_mmap) a.insert(a.end(), {"-mmp", "0"});
  return a;
}

}  // namespace

std::vector<std::string> exec_argv(const ExecRequest& request) {
  return request.tool == ExecTool::kSweepBench ? sweep_bench_argv(request)
                                               : llama_bench_argv(request);
}

nlohmann::json exec_blanks(ExecTool tool) {
  nlohmann::json blank = {
      {"threads_on_live_context",
       "an external tool cannot switch threads on a live context: each thread setting is one run "
       "of the tool, which loads the model again"},
      {"counters",
       "hardware counters attach to moesweep's own engine worker, not to another "
       "program"},
      {"memory", "memory readings come from moesweep's own engine worker"},
      {"routing", "the routing tap is moesweep's worker's"}};
  if (tool == ExecTool::kSweepBench)
    blank["repetitions"] =
        "llama-sweep-bench times each depth once (its -nrep repeats only the first depth and "
        "reports the mean): one sample per phase, no spread, no CI";
  return blank;
}

}  // namespace moesweep
