// The rows of an external tool's JSONL output (engine/exec_tool.hpp). The
// output is another program's: every row is read through the typed field
// reader, with the ranges our records can hold, and a row that is not what
// the tool writes is a UserError naming the line and the field.
#include <fmt/format.h>

#include <map>
#include <sstream>

#include "engine/exec_tool.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"
#include "util/json_fields.hpp"

namespace moesweep {
namespace {

constexpr int64_t kMaxTokens = 1 << 24;        // larger than any context an engine takes
constexpr double kMaxSeconds = 7 * 24 * 3600;  // a week per phase
constexpr size_t kMaxRows = 100000;
constexpr size_t kMaxSamples = 10000;

// A line the tool wrote as a JSON object, or nothing for a log line.
std::optional<nlohmann::json> json_line(const std::string& line) {
  const size_t start = line.find_first_not_of(" \t\r");
  if (start == std::string::npos || line[start] != '{') return std::nullopt;
  nlohmann::json j = parse_json_or_discarded(std::string_view(line).substr(start));
  if (j.is_discarded() || !j.is_object()) return std::nullopt;  // a log line starting with '{'
  return j;
}

// {"n_kv_max": .., "pp": 512, "tg": 128, "n_kv": 0, "t_pp": 1.2, "speed_pp": ..,
//  "t_tg": .., "speed_tg": .., ...}: one mean time per phase.
std::optional<ExecRow> sweep_bench_row(const JsonFields& f) {
  if (!f.has("n_kv") || !f.has("speed_pp")) return std::nullopt;  // some other JSON in the log
  for (const char* key : {"pp", "tg", "t_pp", "t_tg"})
    if (!f.has(key)) f.fail(key, "llama-sweep-bench's row: pp, tg, n_kv, t_pp and t_tg");
  ExecRow row;
  row.n_kv = static_cast<int>(f.integer("n_kv", 0, kMaxTokens, 0));
  row.n_threads = static_cast<int>(f.integer("n_threads", 0, 1 << 20, 0));
  row.pp.tokens = static_cast<int>(f.integer("pp", 1, kMaxTokens, 1));
  row.tg.tokens = static_cast<int>(f.integer("tg", 1, kMaxTokens, 1));
  row.pp.seconds = {f.number("t_pp", 1e-9, kMaxSeconds, 0)};
  row.tg.seconds = {f.number("t_tg", 1e-9, kMaxSeconds, 0)};
  return row;
}

std::vector<double> sample_seconds(const JsonFields& f) {
  const nlohmann::json& ns = f.array("samples_ns");
  if (ns.empty() || ns.size() > kMaxSamples) f.fail("samples_ns", "1 to 10000 durations in ns");
  std::vector<double> out;
  for (const nlohmann::json& v : ns) {
    if (!v.is_number_integer() || v.get<int64_t>() <= 0 || v.get<double>() / 1e9 > kMaxSeconds)
      f.fail("samples_ns", "positive integer durations in ns");
    out.push_back(v.get<double>() / 1e9);
  }
  return out;
}

// llama-bench: one row per test; a PP test (n_gen 0) and a TG test
// (n_prompt 0) at each depth, each with every repetition's time.
void llama_bench_row(const JsonFields& f, std::map<int, ExecRow>& by_depth) {
  if (!f.has("samples_ns")) return;
  const int64_t n_prompt = f.integer("n_prompt", 0, kMaxTokens, 0);
  const int64_t n_gen = f.integer("n_gen", 0, kMaxTokens, 0);
  const int n_kv = static_cast<int>(f.integer("n_depth", 0, kMaxTokens, 0));
  if ((n_prompt > 0) == (n_gen > 0)) return;  // a -pg test: not a sweep-bench cell
  ExecRow& row = by_depth[n_kv];
  row.n_kv = n_kv;
  row.n_threads = static_cast<int>(f.integer("n_threads", 0, 1 << 20, 0));
  ExecPhase& phase = n_prompt > 0 ? row.pp : row.tg;
  phase.tokens = static_cast<int>(n_prompt > 0 ? n_prompt : n_gen);
  phase.seconds = sample_seconds(f);
}

}  // namespace

std::vector<ExecRow> parse_exec_output(ExecTool tool, const std::string& output,
                                       const std::string& origin) {
  std::vector<ExecRow> rows;
  std::map<int, ExecRow> by_depth;
  std::istringstream in(output);
  size_t line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    const std::optional<nlohmann::json> j = json_line(line);
    if (!j) continue;
    const JsonFields f(*j, fmt::format("{} line {}", origin, line_no));
    if (tool == ExecTool::kSweepBench) {
      if (auto row = sweep_bench_row(f)) rows.push_back(std::move(*row));
    } else {
      llama_bench_row(f, by_depth);
    }
    if (rows.size() + by_depth.size() > kMaxRows)
      throw UserError(fmt::format("{}: more than {} result rows", origin, kMaxRows),
                      "one row per depth of the run", "check the tool's command line");
  }
  for (auto& [depth, row] : by_depth) rows.push_back(std::move(row));
  return rows;
}

}  // namespace moesweep
