// `moesweep export RUN --format llama-bench-json|llama-bench-sql`: our records
// in llama-bench's output formats, for tools that read those.
#include <fmt/format.h>

#include <memory>

#include "commands.hpp"
#include "results/llama_bench_export.hpp"
#include "results/run_source.hpp"
#include "results/sqlite_store.hpp"
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

int run_export(const ExportArgs& a) {
  std::string text;
  if (a.format == "llama-bench-json") {
    const LoadedRun run = load_run(a.run, a.db);
    text = llama_bench_json(run).dump(2) + "\n";
  } else if (a.format == "llama-bench-sql") {
    const LoadedRun run = load_run(a.run, a.db);
    text = llama_bench_sql(run);
  } else {
    throw UserError("unknown --format '" + a.format + "'", "llama-bench-json or llama-bench-sql",
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
  CLI::App* cmd = app.add_subcommand("export", "write a run in llama-bench's JSON or SQL format");
  cmd->add_option("run", args->run, "run directory, records.jsonl / JSONL file, or run id")
      ->required();
  cmd->add_option("--db", args->db, "results database for run ids")->capture_default_str();
  cmd->add_option("--format", args->format, "llama-bench-json or llama-bench-sql")
      ->capture_default_str();
  cmd->add_option("-o,--out", args->out, "file to write (default: stdout)");
  cmd->callback([&run, args] { run = [args] { return run_export(*args); }; });
}

}  // namespace moesweep::cli
