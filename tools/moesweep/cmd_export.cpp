// `moesweep export RUN --format llama-bench-json|llama-bench-sql`: our records
// in llama-bench's output formats, for tools that read those; `--format
// tokens-csv`: the run's per-token decode times (tokens.jsonl) as CSV.
#include <fmt/format.h>

#include <memory>

#include "commands.hpp"
#include "results/llama_bench_export.hpp"
#include "results/run_source.hpp"
#include "results/sqlite_store.hpp"
#include "results/token_file.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"

namespace moesweep::cli {
namespace {

struct ExportArgs {
  std::string run;
  std::string db = SqliteStore::default_path().string();
  std::string format = "llama-bench-json";
  std::string out;
};

// A run directory's tokens.jsonl (tokens-csv reads the run's files, not the database).
std::filesystem::path token_file_of(const std::string& run) {
  const std::filesystem::path file = std::filesystem::path(run) / kTokenFileName;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))
    throw UserError(fmt::format("'{}' has no {}", run, kTokenFileName),
                    "a run directory of a sweep that timed its tokens (sweep --token-times on, the "
                    "default)",
                    "pass the run's directory, e.g. results/runs/<time>-<name>");
  return file;
}

int run_export(const ExportArgs& a) {
  std::string text;
  if (a.format == "llama-bench-json") {
    const LoadedRun run = load_run(a.run, a.db);
    text = llama_bench_json(run).dump(2) + "\n";
  } else if (a.format == "llama-bench-sql") {
    const LoadedRun run = load_run(a.run, a.db);
    text = llama_bench_sql(run);
  } else if (a.format == "tokens-csv") {
    text = tokens_csv(read_token_file(token_file_of(a.run)));
  } else {
    throw UserError("unknown --format '" + a.format + "'",
                    "llama-bench-json, llama-bench-sql or tokens-csv",
                    "pass --format llama-bench-sql | sqlite3 bench.db");
  }
  if (a.out.empty()) {
    fmt::print("{}", text);
  } else {
    write_file_atomically(a.out, text);
    fmt::print(stderr, "wrote {}\n", a.out);
  }
  return 0;
}

}  // namespace

void add_export_command(CLI::App& app, CommandRunner& run) {
  auto args = std::make_shared<ExportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "export", "write a run in llama-bench's JSON or SQL format, or its per-token times as CSV");
  cmd->add_option("run", args->run, "run directory, records.jsonl / JSONL file, or run id")
      ->required();
  cmd->add_option("--db", args->db, "results database for run ids")->capture_default_str();
  cmd->add_option("--format", args->format,
                  "llama-bench-json, llama-bench-sql, or tokens-csv (each generated token's "
                  "decode time, from the run directory's tokens.jsonl)")
      ->capture_default_str();
  cmd->add_option("-o,--out", args->out, "file to write (default: stdout)");
  cmd->callback([&run, args] { run = [args] { return run_export(*args); }; });
}

}  // namespace moesweep::cli
