// The CLI against hostile state, no engine run needed: every usage error and
// every path a user or the environment gets wrong exits 2 with the
// three-part message, and a refused sweep creates nothing (no run directory,
// no database row).
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "results/sqlite_store.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

using test::CommandResult;

// A sweep refused before anything runs (twin by name: nothing is built).
const std::string kSweep =
    "sweep --scale tiny -t 1 -c 512 -ub 64 -n 2 -r 1 --depths 0 --counters none --quiet";
const std::string kTwin = " -m kimi-k2.5 -q Q4_K_S";

const std::string kRecordLine =
    R"({"n_kv_max": 512, "n_batch": 64, "n_ubatch": 64, "flash_attn": 0, "n_gpu_layers": 0, )"
    R"("n_threads": 1, "n_threads_batch": 1, "pp": 64, "tg": 2, "n_kv": 0, "t_pp": 0.5, )"
    R"("speed_pp": 128.0, "t_tg": 0.1, "speed_tg": 20.0, "run_id": "run-a"})";

void expect_usage_error(const CommandResult& r, const std::string& args,
                        const std::string& problem) {
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
  for (const char* part : {"moesweep: error: ", "\n  expected: ", "\n  fix: "})
    EXPECT_NE(r.err.find(part), std::string::npos) << args << ": no '" << part << "' in\n" << r.err;
  EXPECT_NE(r.err.find(problem), std::string::npos) << args << ": wanted '" << problem << "' in\n"
                                                    << r.err;
}

void expect_refused(const std::string& args, const std::string& problem) {
  expect_usage_error(test::run_cli(args), args, problem);
}

TEST(HostileCli, ParseErrorsExitTwoNotCli11Codes) {
  expect_refused("sweep --bogus", "was not expected: --bogus");
  expect_refused("sweep -t", "--threads");                                       // a value missing
  expect_refused("sweep --keep-pp 3", "value '3' is not a number from 0 to 1");  // a check failing
  expect_refused("compare only-one", "only one run given");
  expect_refused("", "A subcommand is required");
  // --help and --version are not errors.
  EXPECT_EQ(test::run_cli("sweep --help").exit_code, 0);
  EXPECT_EQ(test::run_cli("--version").exit_code, 0);
}

TEST(HostileCli, AnUnknownSubcommandIsNamed) {
  const CommandResult r = test::run_cli("swep -t 1");
  expect_usage_error(r, "swep", "unknown subcommand 'swep'");
  EXPECT_NE(r.err.find("sweep"), std::string::npos) << r.err;  // the list of real ones
  EXPECT_EQ(r.err.find("A subcommand is required"), std::string::npos) << r.err;
}

// An unknown key in `compare --on` is blamed on --on, not on --ignore.
TEST(HostileCli, CompareOnWithAnUnknownKeyIsBlamedOnOnNotIgnore) {
  const std::filesystem::path file = test::scratch_dir() / "a.jsonl";
  std::ofstream(file) << kRecordLine << "\n";
  const CommandResult r =
      test::run_cli("compare '" + file.string() + "' '" + file.string() + "' --on bogus");
  expect_usage_error(r, "--on bogus", "--on names unknown key field 'bogus'");
  EXPECT_EQ(r.err.find("--ignore names"), std::string::npos) << r.err;
}

// A sweep refused at `problem` leaves neither its --out-dir nor its database.
void expect_sweep_creates_nothing(const std::string& extra, const std::string& problem,
                                  const std::string& model = kTwin) {
  const std::filesystem::path dir = test::scratch_dir() / "case";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string args = kSweep + model + " --out-dir '" + (dir / "runs").string() + "' " + extra;
  expect_refused(args, problem);
  EXPECT_FALSE(std::filesystem::exists(dir / "runs")) << args;
}

TEST(HostileCli, DatabasePathsThatCannotWorkAreRefusedFirst) {
  expect_sweep_creates_nothing("--db ''", "the results database path is empty");
  expect_sweep_creates_nothing("--db /dev/null", "results database '/dev/null' is a device");
  expect_sweep_creates_nothing("--db '" + test::scratch_dir().string() + "'", "is a directory");
  expect_sweep_creates_nothing("--db /proc/nope/x.sqlite", "cannot create directory '/proc/nope'");
}

TEST(HostileCli, ALongNameIsRefusedForItsLengthNotBlamedOnPermissions) {
  expect_sweep_creates_nothing("--no-db --name " + std::string(300, 'n'),
                               "the run name is 300 characters long");
}

TEST(HostileCli, AMissingModelFileLeavesNoRunDirectoryAndNoDatabaseRow) {
  const std::filesystem::path db = test::scratch_dir() / "db.sqlite";
  expect_sweep_creates_nothing("--db '" + db.string() + "'",
                               "model file '/nonexistent.gguf' does not exist",
                               " -m /nonexistent.gguf");
  if (std::filesystem::exists(db)) {
    SqliteStore store(db, SqliteStore::Mode::kReadOnly);
    EXPECT_TRUE(store.list_runs().empty());
  }
}

// `command` run by another user (nobody) when the test runs as root, whom
// permission bits do not stop; as any other user, run as is.
std::string unprivileged(const std::string& command) {
  if (::geteuid() != 0) return command;
  return "setpriv --reuid=65534 --regid=65534 --clear-groups " + command;
}

// A valid database with one run in it, in a directory only its owner may write.
std::filesystem::path read_only_database() {
  const std::filesystem::path dir = test::scratch_dir() / "ro";
  std::filesystem::create_directories(dir);
  const std::filesystem::path db = dir / "results.sqlite";
  {
    SqliteSink sink(db);
    RunMeta meta;
    meta.run_id = "run-a";
    meta.name = "ro";
    sink.begin(meta);
    Record r;
    r.run_id = "run-a";
    r.params.pp = 64;
    r.params.tg = 2;
    r.pp.tokens_per_s = {100};
    r.pp.seconds = {0.64};
    r.pp.summarize();
    sink.point(r);
    sink.end(meta, RunStatus::kComplete);
  }
  std::filesystem::permissions(db, std::filesystem::perms::owner_read |
                                       std::filesystem::perms::group_read |
                                       std::filesystem::perms::others_read);
  std::filesystem::permissions(
      dir, std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
               std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
               std::filesystem::perms::others_exec);
  if (::geteuid() != 0)
    std::filesystem::permissions(dir, std::filesystem::perms::owner_write,
                                 std::filesystem::perm_options::remove);
  return db;
}

TEST(HostileCli, AReadOnlyDatabaseIsCalledReadOnlyAndStillReads) {
  const std::filesystem::path db = read_only_database();
  if (::geteuid() == 0) {
    if (test::run_shell(unprivileged("true")).exit_code != 0)
      GTEST_SKIP() << "cannot run a command as another user here (setpriv)";
    // A checkout under a private folder (root's 0700 home, mktemp -d): nobody
    // cannot even load the CLI, which says nothing about read-only databases.
    if (test::run_shell(unprivileged(std::string(MOESWEEP_CLI) + " --version")).exit_code != 0)
      GTEST_SKIP() << "user nobody cannot run " << MOESWEEP_CLI
                   << " (a folder above the checkout is private); run the tests from a "
                      "checkout others can read to test this";
  }
  const std::filesystem::path out = test::scratch_dir() / "open" / "runs";
  std::filesystem::create_directories(out.parent_path());
  std::filesystem::permissions(out.parent_path(), std::filesystem::perms::all);
  const std::string sweep = std::string(MOESWEEP_CLI) + " " + kSweep + kTwin + " --db '" +
                            db.string() + "' --out-dir '" + out.string() + "'";
  const CommandResult w = test::run_shell(unprivileged(sweep));
  expect_usage_error(w, "sweep on a read-only db", "is read-only for this user");
  EXPECT_EQ(w.err.find("not a readable SQLite database"), std::string::npos) << w.err;
  EXPECT_FALSE(std::filesystem::exists(out));

  // Readers need no write access: export finds the run and prints it.
  const CommandResult r = test::run_shell(
      unprivileged(std::string(MOESWEEP_CLI) + " export run-a --db '" + db.string() + "'"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"n_prompt\""), std::string::npos) << r.out;
}

TEST(HostileCli, OutputPathsThatCannotBeWrittenExitTwo) {
  const std::filesystem::path file = test::scratch_dir() / "a.jsonl";
  std::ofstream(file) << kRecordLine << "\n";
  expect_refused("report '" + file.string() + "' --no-plots --out /proc/nope/report",
                 "cannot create report directory '/proc/nope/report'");
  expect_refused("export '" + file.string() + "' -o /proc/nope.json", "cannot write");
  expect_refused("synth --out /proc/x.gguf", "cannot write --out '/proc/x.gguf'");
}

TEST(HostileCli, ExportOfAFileThatHoldsNoRecordsIsAnError) {
  const std::filesystem::path plain = test::scratch_dir() / "notes.jsonl";
  std::ofstream(plain) << "just some text\n";
  expect_refused("export '" + plain.string() + "'", plain.string() + ":1: not valid JSON");

  const std::filesystem::path typed = test::scratch_dir() / "typed.jsonl";
  std::string wrong = kRecordLine;
  wrong.replace(wrong.find("\"pp\": 64"), 8, "\"pp\": [64]");
  std::ofstream(typed) << wrong << "\n";
  expect_refused("export '" + typed.string() + "'",
                 ":1: 'pp' is an array where an integer from -2^31 to 2^31-1 belongs");
}

}  // namespace
}  // namespace moesweep
