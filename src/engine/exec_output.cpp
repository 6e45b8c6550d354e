// The rows of an external tool's JSONL output (engine/exec_tool.hpp). The
// output is another program's: every row is read through the typed field
// reader, with the ranges our records can hold, and a row that is not what
// the tool writes is a UserError naming the line and the field.
#include <fmt/format.h>

#include <map>
#include <sstream>

#include "engine/exec_tool.hpp"
#include "util/error.hpp"
#include "util/json_fields.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

constexpr int64_t kMaxTokens = 1 << 24;        // larger than any context an engine takes
constexpr double kMaxSeconds = 7 * 24 * 3600;  // a week per phase
constexpr size_t kMaxRows = 100000;
constexpr size_t kMaxSamples = 10000;

// Keys only a result row of the tool has.
bool looks_like_a_row(ExecTool tool, const std::string& line) {
  if (tool == ExecTool::kSweepBench)
    return line.find("\"n_kv\"") != std::string::npos &&
           line.find("\"speed_pp\"") != std::string::npos;
  return line.find("\"samples_ns\"") != std::string::npos;
}

// A line the tool wrote as a JSON object, or nothing for a log line. A row of
// the tool that is not JSON (a printf of nan or inf) is no log line: refused.
std::optional<nlohmann::json> json_line(ExecTool tool, const std::string& line,
                                        const std::string& where) {
  const size_t start = line.find_first_not_of(" \t\r");
  if (start == std::string::npos || line[start] != '{') return std::nullopt;
  nlohmann::json j = parse_json_or_discarded(std::string_view(line).substr(start));
  if (!j.is_discarded() && j.is_object()) return j;
  if (looks_like_a_row(tool, line))
    throw UserError(
        fmt::format("{}: a result row that is not JSON: '{}'", where, line.substr(start, 200)),
        "finite numbers (a row with nan or inf is a time the tool could not take)",
        "run the tool by hand with the command line in the error to see why");
  return std::nullopt;  // a log line starting with '{'
}

// What the tool says it ran, where its row says it (absent: 0 or "").
const FieldRows<ExecRow>& ran_fields() {
  static const FieldRows<ExecRow> rows = {
      {"n_threads", &ExecRow::n_threads, 0, 1 << 20},
      {"n_threads_batch", &ExecRow::n_threads_batch, 0, 1 << 20},
      {"n_batch", &ExecRow::n_batch, 0, kMaxTokens},
      {"n_ubatch", &ExecRow::n_ubatch, 0, kMaxTokens},
      {"model_filename", &ExecRow::model},  // llama-bench's
      {"type_k", &ExecRow::type_k},
      {"type_v", &ExecRow::type_v},
  };
  return rows;
}

// {"n_kv_max": .., "pp": 512, "tg": 128, "n_kv": 0, "t_pp": 1.2, "speed_pp": ..,
//  "t_tg": .., "speed_tg": .., ...}: one mean time per phase.
std::optional<ExecRow> sweep_bench_row(const JsonFields& f) {
  if (!f.has("n_kv") || !f.has("speed_pp")) return std::nullopt;  // some other JSON in the log
  for (const char* key : {"pp", "tg", "t_pp", "t_tg"})
    if (!f.has(key)) f.fail(key, "llama-sweep-bench's row: pp, tg, n_kv, t_pp and t_tg");
  ExecRow row;
  read_rows(f, row, ran_fields());
  row.n_kv = static_cast<int>(f.integer("n_kv", 0, kMaxTokens, 0));
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

// The rows by depth, each depth's (and phase's) first line kept to tell a
// repeated row from a conflicting one.
struct RowsByDepth {
  std::map<int, ExecRow> by_depth;
  std::map<std::pair<int, int>, std::pair<nlohmann::json, size_t>> first;  // (depth, phase)

  // False when this depth/phase has a row already: equal, it is dropped;
  // different, the depth is marked as conflicting.
  bool take(int depth, int phase, const nlohmann::json& j, size_t line, const char* tool) {
    const auto [it, fresh] = first.try_emplace({depth, phase}, j, line);
    if (fresh) return true;
    if (it->second.first != j && by_depth[depth].conflict.empty())
      by_depth[depth].conflict = fmt::format(
          "{} wrote two different rows for N_KV {} (lines {} and {}): which one it measured is "
          "not known",
          tool, depth, it->second.second, line);
    return false;
  }
};

// llama-bench: one row per test; a PP test (n_gen 0) and a TG test
// (n_prompt 0) at each depth, each with every repetition's time.
void llama_bench_row(const JsonFields& f, size_t line, RowsByDepth& rows) {
  if (!f.has("samples_ns")) return;
  const int64_t n_prompt = f.integer("n_prompt", 0, kMaxTokens, 0);
  const int64_t n_gen = f.integer("n_gen", 0, kMaxTokens, 0);
  const int n_kv = static_cast<int>(f.integer("n_depth", 0, kMaxTokens, 0));
  if ((n_prompt > 0) == (n_gen > 0)) return;  // a -pg test: not a sweep-bench cell
  const std::vector<double> seconds = sample_seconds(f);
  if (!rows.take(n_kv, n_prompt > 0 ? 0 : 1, f.json(), line, "llama-bench")) return;
  ExecRow& row = rows.by_depth[n_kv];
  ExecRow ran;
  read_rows(f, ran, ran_fields());
  // The PP and TG tests of a depth must have run alike: what they differ in
  // is a conflict of its own.
  const bool first_test = row.pp.seconds.empty() && row.tg.seconds.empty();
  const auto same = [](const ExecRow& a, const ExecRow& b) {
    return a.n_threads == b.n_threads && a.n_batch == b.n_batch && a.n_ubatch == b.n_ubatch &&
           a.model == b.model && a.type_k == b.type_k && a.type_v == b.type_v;
  };
  if (!first_test && !same(row, ran) && row.conflict.empty())
    row.conflict = fmt::format(
        "llama-bench's PP and TG tests for N_KV {} ran with different settings (line {})", n_kv,
        line);
  if (first_test) {
    ran.conflict = row.conflict;
    ran.pp = row.pp;
    ran.tg = row.tg;
    row = std::move(ran);
  }
  row.n_kv = n_kv;
  ExecPhase& phase = n_prompt > 0 ? row.pp : row.tg;
  phase.tokens = static_cast<int>(n_prompt > 0 ? n_prompt : n_gen);
  phase.seconds = seconds;
}

}  // namespace

std::vector<ExecRow> parse_exec_output(ExecTool tool, const std::string& output,
                                       const std::string& origin) {
  RowsByDepth rows;
  std::istringstream in(output);
  size_t line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    const std::string where = fmt::format("{} line {}", origin, line_no);
    const std::optional<nlohmann::json> j = json_line(tool, line, where);
    if (!j) continue;
    const JsonFields f(*j, where);
    if (tool == ExecTool::kSweepBench) {
      std::optional<ExecRow> row = sweep_bench_row(f);
      if (row && rows.take(row->n_kv, 0, *j, line_no, "llama-sweep-bench")) {
        row->conflict = rows.by_depth[row->n_kv].conflict;
        rows.by_depth[row->n_kv] = std::move(*row);
      }
    } else {
      llama_bench_row(f, line_no, rows);
    }
    if (rows.by_depth.size() > kMaxRows || line_no > 100 * kMaxRows)
      throw UserError(fmt::format("{}: more than {} result rows", origin, kMaxRows),
                      "one row per depth of the run", "check the tool's command line");
  }
  std::vector<ExecRow> out;
  for (auto& [depth, row] : rows.by_depth) out.push_back(std::move(row));
  return out;
}

}  // namespace moesweep
