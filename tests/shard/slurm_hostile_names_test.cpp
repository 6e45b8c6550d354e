// The sbatch script is safe by construction (issue 20, defect 4): scripts
// built from hostile names (space, '%', quotes, $(), backticks, ';') pass
// `bash -n`, and run with test doubles of sbatch and srun (shell stubs that
// record their argv, NUL-separated) they hand every name through unchanged
// and run nothing of it. A newline anywhere is refused. The #SBATCH lines are
// read back with a copy of sbatch's own tokenizer (Slurm's src/sbatch/opt.c
// _get_argument: quotes group, '\' escapes, an unquoted '#' ends the line).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cluster/slurm_script.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;

// Test double of sbatch's reading of one "#SBATCH ..." line into its words.
std::vector<std::string> sbatch_line_words(const std::string& line) {
  std::vector<std::string> words;
  size_t i = std::string("#SBATCH").size();
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i >= line.size()) break;
    std::string word;
    bool quoted = false, escaped = false;
    char quote = 0;
    for (; i < line.size() && (quoted || !std::isspace(static_cast<unsigned char>(line[i]))); ++i) {
      const char c = line[i];
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
        continue;
      } else if (quoted) {
        if (c == quote) {
          quoted = false;
          continue;
        }
      } else if (c == '"' || c == '\'') {
        quoted = true;
        quote = c;
        continue;
      } else if (c == '#') {
        return words;  // the rest is a comment
      }
      word += c;
    }
    words.push_back(word);
  }
  return words;
}

// --option=value of every #SBATCH line, as sbatch reads them.
std::map<std::string, std::string> sbatch_options(const std::string& script) {
  std::map<std::string, std::string> out;
  std::istringstream in(script);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("#SBATCH", 0) != 0) continue;
    for (const std::string& w : sbatch_line_words(line)) {
      const size_t eq = w.find('=');
      out[w.substr(0, eq)] = eq == std::string::npos ? "" : w.substr(eq + 1);
    }
  }
  return out;
}

std::string pct(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '%' ? std::string("%%") : std::string(1, c);
  return out;
}

std::vector<std::string> nul_words(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::vector<std::string> words;
  for (std::string w; std::getline(in, w, '\0');) words.push_back(w);
  return words;
}

// Stubs that record their argv into $STUB_LOG/<name>.argv.
fs::path write_stubs(const fs::path& dir) {
  const fs::path bin = dir / "stub-bin";
  fs::create_directories(bin);
  for (const char* name : {"sbatch", "srun"}) {
    std::ofstream(bin / name) << "#!/bin/bash\nprintf '%s\\0' \"$@\" > \"$STUB_LOG/" << name
                              << ".argv\"\n";
    fs::permissions(bin / name, fs::perms::owner_all);
  }
  return bin;
}

const std::string kHostile = "p l%a'\"$(touch PWNED1)`touch PWNED2`;touch PWNED3 #x";

TEST(SlurmHostileNames, ScriptsFromHostileNamesParseRunAndHandEveryNameThrough) {
  const fs::path root = test::scratch_dir();
  const fs::path plan = root / ("plan " + kHostile);
  fs::create_directories(plan / "logs");
  PlanIndex index{"0123456789abcdef", "my \"sweep\"; $(x)", 3, 4};
  SlurmScriptOptions o;
  o.moesweep = (root / "bin dir$(touch PWNED4)" / "moesweep").string();
  o.partition = "part a%x";
  o.account = "acc'$(touch PWNED5)";
  o.constraint = "zen5&ddr5|\"quoted\"";
  o.time = "01:00:00";
  o.db = (root / "db 50%.sqlite").string();
  const std::string script = slurm_script(index, plan, o);
  const fs::path file = root / "job.sh";
  std::ofstream(file) << script;
  const auto syntax = test::run_shell("bash -n '" + file.string() + "'");
  ASSERT_EQ(syntax.exit_code, 0) << syntax.err << script;

  const auto opts = sbatch_options(script);
  EXPECT_EQ(opts.at("--output"), pct(plan.string()) + "/logs/shard-%a.out");
  EXPECT_EQ(opts.at("--partition"), o.partition);
  EXPECT_EQ(opts.at("--account"), o.account);
  EXPECT_EQ(opts.at("--constraint"), o.constraint);
  EXPECT_EQ(opts.at("--array"), "0-2");
  EXPECT_EQ(opts.at("--cpus-per-task"), "4");
  EXPECT_EQ(opts.at("--job-name"), "moesweep-my__sweep_____x_");

  const fs::path bin = write_stubs(root);
  const auto run = test::run_shell("cd '" + root.string() + "' && STUB_LOG='" + root.string() +
                                   "' SLURM_ARRAY_JOB_ID=77 PATH='" + bin.string() +
                                   "':\"$PATH\" bash '" + file.string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::vector<std::string> srun = nul_words(root / "srun.argv");
  const std::vector<std::string> want_srun = {
      "--ntasks=1", "--cpu-bind=none",        o.moesweep, "sweep",  "--shard", plan.string(),
      "--out-dir",  (plan / "runs").string(), "--no-db",  "--quiet"};
  EXPECT_EQ(srun, want_srun);
  const std::vector<std::string> sbatch = nul_words(root / "sbatch.argv");
  ASSERT_GE(sbatch.size(), 7u);
  EXPECT_EQ(sbatch[0], "--dependency=afterany:77");
  EXPECT_EQ(sbatch[1], "--job-name=moesweep-my__sweep_____x_-merge");
  EXPECT_NE(std::find(sbatch.begin(), sbatch.end(), "--partition=" + o.partition), sbatch.end());
  EXPECT_NE(std::find(sbatch.begin(), sbatch.end(), "--account=" + o.account), sbatch.end());
  EXPECT_NE(std::find(sbatch.begin(), sbatch.end(),
                      "--output=" + pct((plan / "logs").string()) + "/merge.out"),
            sbatch.end());
  // --wrap's command, split as the merge job's shell will split it.
  const std::string wrap = sbatch.back().substr(std::string("--wrap=").size());
  std::ofstream(root / "wrap.txt") << wrap;
  const auto words =
      test::run_shell("eval \"set -- $(cat '" + (root / "wrap.txt").string() +
                      "')\"; printf '%s\\0' \"$@\" > '" + (root / "wrap.argv").string() + "'");
  ASSERT_EQ(words.exit_code, 0) << words.err;
  const std::vector<std::string> want_merge = {
      o.moesweep, "merge", (plan / "runs").string(), "--out", (plan / "merged").string(),
      "--db",     o.db};
  EXPECT_EQ(nul_words(root / "wrap.argv"), want_merge);
  for (const char* pwned : {"PWNED1", "PWNED2", "PWNED3", "PWNED4", "PWNED5"}) {
    EXPECT_FALSE(fs::exists(root / pwned)) << pwned << " ran";
    EXPECT_FALSE(fs::exists(plan / pwned)) << pwned << " ran";
  }
}

TEST(SlurmHostileNames, ANewlineOrAnyControlCharacterIsRefused) {
  PlanIndex index{"0123456789abcdef", "x", 2, 1};
  SlurmScriptOptions o;
  o.moesweep = "/bin/moesweep";
  const auto refused = [&](const fs::path& dir, const SlurmScriptOptions& opts,
                           const std::string& names) {
    try {
      slurm_script(index, dir, opts);
      ADD_FAILURE() << "accepted " << names;
    } catch (const UserError& e) {
      EXPECT_NE(e.problem().find(names), std::string::npos) << e.problem();
      EXPECT_NE(e.problem().find("control character"), std::string::npos) << e.problem();
    }
  };
  refused("/tmp/p/nl\ntouch /tmp/PWNED\n#", o, "the plan directory");
  SlurmScriptOptions p = o;
  p.partition = "zen5\ntouch /tmp/PWNED";
  refused("/tmp/p", p, "--partition");
  p = o;
  p.time = "1:00\r";
  refused("/tmp/p", p, "--time");
  index.plan_id = "abc\ntouch x";
  refused("/tmp/p", o, "plan_id");
  index.plan_id = "0123456789abcdef";
  try {  // sbatch processes no %a in an --output path with a backslash
    slurm_script(index, "/tmp/a\\b", o);
    ADD_FAILURE() << "accepted a backslash";
  } catch (const UserError& e) {
    EXPECT_NE(e.problem().find("holds a backslash"), std::string::npos) << e.problem();
  }
}

// Through the CLI: a plan written into a directory with a newline in its
// name gets no script (exit 2); the plan.json's plan_id is checked too.
TEST(SlurmHostileNames, CliRefusesANewlineInThePlanDirectoryAndInPlanJson) {
  const fs::path root = test::scratch_dir();
  const fs::path nl = root / "nl\ntouch PWNED\n#";
  const std::string sweep = " --profile ci --ubatch-size 128,256 --depths 0 -r 1 --shards 2";
  ASSERT_EQ(test::run_cli("plan" + sweep + " --out '" + nl.string() + "'").exit_code, 0);
  auto r = test::run_cli("slurm '" + nl.string() + "'");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find("control character"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << "no script at all";
  const fs::path spaced = root / "a b%c";
  ASSERT_EQ(test::run_cli("plan" + sweep + " --out '" + spaced.string() + "'").exit_code, 0);
  r = test::run_cli("slurm '" + spaced.string() + "' --partition 'x y'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("#SBATCH --partition=\"x y\"\n"), std::string::npos) << r.out;
  std::ofstream(spaced / "plan.json") << R"({"moesweep_plan": 1, "plan_id": "ab\ntouch x",
                                            "shard_count": 2, "max_threads": 1})";
  r = test::run_cli("slurm '" + spaced.string() + "'");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find("field 'plan_id'"), std::string::npos) << r.err;
  std::ofstream(spaced / "plan.json") << R"({"moesweep_plan": 1, "plan_id": "ab",
                                            "shard_count": 4294967297, "max_threads": 1})";
  r = test::run_cli("slurm '" + spaced.string() + "'");
  EXPECT_EQ(r.exit_code, 2) << "shard_count 2^32+1 must not become --array=0-0";
  EXPECT_NE(r.err.find("field 'shard_count' is 4294967297"), std::string::npos) << r.err;
  std::ofstream(spaced / "plan.json") << R"({"moesweep_plan": 1, "plan_id": "ab",
                                            "shard_count": 2, "max_threads": 1000000000000})";
  r = test::run_cli("slurm '" + spaced.string() + "'");
  EXPECT_EQ(r.exit_code, 2) << "max_threads 1e12 must not become 1";
  EXPECT_NE(r.err.find("field 'max_threads'"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace moesweep
