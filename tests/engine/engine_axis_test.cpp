// sweep --engine a,b (issue 19): every point measured on every engine, the
// engines taking turns point by point in ABBA order, the engine in every
// record and in the key, tables per engine plus the side-by-side table, and
// compare between two engines of one run. The second engine here is this
// build's own worker registered under another name (an A/A pair: two real
// worker processes); tests/engine/engine_builds_test.cpp registers other
// builds for real.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "engine/engine_registry.hpp"
#include "engine/shared_engines.hpp"
#include "results/record.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;

// A registry holding "same": this build's worker under a second name.
fs::path registry_with_same_worker() {
  const fs::path registry = test::scratch_dir() / "engines";
  RegisteredEngine e;
  e.name = "same";
  e.source = "this build's worker, registered by hand (test)";
  const fs::path worker = fs::path(test::cli_path()).parent_path() / "moesweep-worker";
  e.worker = fs::absolute(worker);
  fs::create_directories(registry / "same");
  write_engine_file(registry / "same" / "engine.json", e);
  return registry;
}

const std::string kSweep =
    "sweep -m kimi-k2.5 -q Q4_K_S --scale tiny -t 1 --depths 0,64,128 -c 512 -ub 64 -p 64 -n 8 "
    "-r 3 --counters none --no-db --engine default,same";

TEST(EngineAxis, EveryPointOnEveryEngineInAbbaOrderWithTheEngineInKeyAndRecord) {
  const fs::path registry = registry_with_same_worker();
  const fs::path out = test::scratch_dir() / "runs";
  const auto r = test::run_shell("MOESWEEP_ENGINES=" + test::shell_quoted(registry) + " " +
                                 std::string(test::cli_path()) + " " + kSweep + " --out-dir " +
                                 test::shell_quoted(out));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const fs::path run = test::only_run_dir(out);
  const std::vector<nlohmann::json> recs = test::records_of(run);
  ASSERT_EQ(recs.size(), 6u);
  // Emission order: A B | B A | A B over the depths 0, 64, 128.
  std::vector<std::string> order;
  std::vector<int> depths;
  for (const auto& rec : recs) {
    order.push_back(rec.at("engine").get<std::string>());
    depths.push_back(rec.at("n_kv").get<int>());
    EXPECT_TRUE(rec.at("ok").get<bool>()) << rec.dump();
    EXPECT_EQ(rec.at("extra").at("engine").at("name"), rec.at("engine")) << rec.dump();
    EXPECT_FALSE(rec.at("extra").at("engine").at("release").get<std::string>().empty());
  }
  EXPECT_EQ(order,
            (std::vector<std::string>{"default", "same", "same", "default", "default", "same"}));
  EXPECT_EQ(depths, (std::vector<int>{0, 0, 64, 64, 128, 128}));
  // The turns are per repetition: the TG samples run A B | B A | A B ... with
  // each engine's repetitions 0, 1, 2 of a point in a row of its own turns.
  std::vector<std::string> turns;
  std::map<std::string, std::vector<int>> reps;
  for (const std::string& line : test::read_lines(run / "samples.jsonl")) {
    const nlohmann::json sample = nlohmann::json::parse(line);
    if (sample.at("phase") != "tg") continue;
    const std::string key = sample.at("key");
    const std::string engine = key.find(";engine=same;") != std::string::npos ? "same" : "default";
    turns.push_back(engine);
    reps[engine].push_back(sample.at("rep").get<int>());
  }
  ASSERT_EQ(turns.size(), 18u);  // 3 depths x 3 repetitions x 2 engines
  for (size_t t = 0; t < turns.size(); ++t)
    EXPECT_EQ(turns[t], (t % 4 == 0 || t % 4 == 3) ? "default" : "same") << "turn " << t;
  EXPECT_EQ(reps["default"], (std::vector<int>{0, 1, 2, 0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(reps["same"], reps["default"]);
  // Six distinct points, three per engine, each its own point of the plan.
  std::set<std::pair<std::string, int>> cells;
  std::set<int> points;
  for (const auto& rec : recs) {
    cells.insert({rec.at("engine").get<std::string>(), rec.at("n_kv").get<int>()});
    points.insert(rec.at("point").get<int>());
  }
  EXPECT_EQ(cells.size(), 6u);
  EXPECT_EQ(points.size(), 6u);
  // Tables per engine, then the side-by-side table with a ratio per cell.
  std::ifstream tables(run / "tables.md");
  const std::string md((std::istreambuf_iterator<char>(tables)), {});
  EXPECT_NE(md.find("engine=default"), std::string::npos) << md.substr(0, 2000);
  EXPECT_NE(md.find("engine=same"), std::string::npos) << md.substr(0, 2000);
  const size_t side = md.find("## engines side by side");
  ASSERT_NE(side, std::string::npos) << md;
  EXPECT_NE(md.find("same/default [95% CI]", side), std::string::npos) << md.substr(side);
  // One plain sweep-bench file per engine.
  int files = 0;
  for (const auto& e : fs::directory_iterator(run / "sweep-bench")) files += e.is_regular_file();
  EXPECT_EQ(files, 2);
}

TEST(EngineAxis, TheEngineIsInTheKeyOnlyWhenChosen) {
  PointParams p;
  const std::string without = p.key_string();
  EXPECT_EQ(without.find("engine"), std::string::npos) << without;  // older runs' keys unchanged
  p.engine = "pr";
  EXPECT_NE(p.key_string().find("engine=pr;"), std::string::npos) << p.key_string();
}

TEST(EngineAxis, CompareTwoEnginesOfOneRun) {
  const fs::path registry = registry_with_same_worker();
  const fs::path out = test::scratch_dir() / "runs";
  auto r = test::run_shell("MOESWEEP_ENGINES=" + test::shell_quoted(registry) + " " +
                           std::string(test::cli_path()) + " " + kSweep + " --out-dir " +
                           test::shell_quoted(out));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const fs::path run = test::only_run_dir(out);
  // A/A (two workers of one build), 3 pairs a cell: the MDE is far above 5%,
  // so the gate says inconclusive (5) or, were it small enough, passes (0); a
  // false alarm (4) is held at alpha (0.001 here, so the test cannot flake).
  r = test::run_cli("compare " + test::shell_quoted(run) +
                    " --engines default,same --alpha 0.001 --json");
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 5) << r.out << r.err;
  const nlohmann::json c = nlohmann::json::parse(r.out);
  EXPECT_TRUE(c.at("paired").get<bool>()) << "the engines took turns: their repetitions pair";
  EXPECT_EQ(c.at("gate").at("exit_code").get<int>(), r.exit_code);
  if (r.exit_code == 5) {
    EXPECT_GT(c.at("gate").at("mde_max").get<double>(), 0.05) << "inconclusive: an MDE above 5%";
  }
  EXPECT_EQ(c.at("points").size(), 3u) << r.out;
  EXPECT_TRUE(c.at("only_in_base").empty()) << r.out;
  EXPECT_TRUE(c.at("only_in_new").empty()) << r.out;
  EXPECT_NE(c.at("engines").at("base").get<std::string>().find("default: "), std::string::npos);
  EXPECT_NE(c.at("engines").at("new").get<std::string>().find("same: "), std::string::npos);
  for (const auto& p : c.at("points")) {
    const auto& tg = p.at("tg");
    EXPECT_EQ(tg.at("test"), "paired-t") << p.dump();
    EXPECT_TRUE(tg.at("mde").is_number()) << p.dump();
    EXPECT_LE(tg.at("ratio_ci95")[0].get<double>(), tg.at("ratio").get<double>());
    EXPECT_GE(tg.at("ratio_ci95")[1].get<double>(), tg.at("ratio").get<double>());
  }
  // An engine the run does not hold: exit 2 naming the ones it does.
  r = test::run_cli("compare " + test::shell_quoted(run) + " --engines default,other");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("default, same"), std::string::npos) << r.err;
}

// --target-mde (issue 31): repetitions are added cell by cell, the engines
// still taking turns, until the cell's MDE is within the target or
// --max-repetitions; a target no run reaches (0.01%) takes every cell to the
// maximum on both engines alike and says it was not met. The dry run says
// what the target means and what it would cost.
TEST(EngineAxis, TargetMdeAddsRepetitionsInTurnsUpToTheMaximum) {
  const fs::path registry = registry_with_same_worker();
  const fs::path out = test::scratch_dir() / "runs";
  const std::string sweep =
      "MOESWEEP_ENGINES=" + test::shell_quoted(registry) + " " + std::string(test::cli_path()) +
      " sweep -m kimi-k2.5 -q Q4_K_S --scale tiny -t 1 --depths 0,64 -c 512 -ub 64 -p 64 -n 8 "
      "-r 2 --target-mde 0.01 --max-repetitions 4 --counters none --no-db --engine default,same";
  auto r = test::run_shell(sweep + " --dry-run");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("--target-mde 0.01%: each cell's MDE at alpha 0.00625 (Holm over 4 "
                       "test(s) at half of 0.05"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("until each cell's MDE is within 0.01%"), std::string::npos) << r.out;
  r = test::run_shell(sweep + " --out-dir " + test::shell_quoted(out));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const fs::path run = test::only_run_dir(out);
  const std::vector<nlohmann::json> recs = test::records_of(run);
  ASSERT_EQ(recs.size(), 4u);
  for (const auto& rec : recs) {
    EXPECT_EQ(rec.at("repetitions").at("done"), 4) << rec.dump();
    EXPECT_FALSE(rec.at("repetitions").at("target_met").get<bool>()) << rec.dump();
    EXPECT_DOUBLE_EQ(rec.at("repetitions").at("target_mde_pct").get<double>(), 0.01);
  }
  // Still ABBA, repetition by repetition: 2 depths x 4 repetitions x 2 engines.
  std::vector<std::string> turns;
  for (const std::string& line : test::read_lines(run / "samples.jsonl")) {
    const nlohmann::json sample = nlohmann::json::parse(line);
    if (sample.at("phase") != "tg") continue;
    turns.push_back(sample.at("key").get<std::string>().find(";engine=same;") != std::string::npos
                        ? "same"
                        : "default");
  }
  ASSERT_EQ(turns.size(), 16u);
  for (size_t t = 0; t < turns.size(); ++t)
    EXPECT_EQ(turns[t], (t % 4 == 0 || t % 4 == 3) ? "default" : "same") << "turn " << t;
}

// --min-sample-time (issue 31 §1): a sample is whole calls of -n (-p), and
// the engines of a cell run the same number of them, so the pairs' ratio
// compares samples of one length. No timing asserted: how many calls is the
// machine's business, that both engines agree is not.
TEST(EngineAxis, BothEnginesOfACellTakeSamplesOfOneLength) {
  const fs::path registry = registry_with_same_worker();
  const fs::path out = test::scratch_dir() / "runs";
  const auto r = test::run_shell("MOESWEEP_ENGINES=" + test::shell_quoted(registry) + " " +
                                 std::string(test::cli_path()) + " " + kSweep +
                                 " --min-sample-time 0.02 --out-dir " + test::shell_quoted(out));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::map<int, std::map<std::string, std::pair<int, int>>>
      run_tokens;  // n_kv -> engine -> (tg, pp)
  for (const auto& rec : test::records_of(test::only_run_dir(out))) {
    const int tg = rec.at("tg_phase").at("tokens_run").get<int>();
    const int pp = rec.at("pp_phase").at("tokens_run").get<int>();
    EXPECT_EQ(tg % 8, 0) << rec.dump();
    EXPECT_EQ(pp % 64, 0) << rec.dump();
    run_tokens[rec.at("n_kv").get<int>()][rec.at("engine").get<std::string>()] = {tg, pp};
  }
  ASSERT_EQ(run_tokens.size(), 3u);
  for (const auto& [n_kv, engines] : run_tokens) {
    ASSERT_EQ(engines.size(), 2u) << n_kv;
    EXPECT_EQ(engines.at("default"), engines.at("same")) << "N_KV " << n_kv;
  }

  // Interrupted between the engines of N_KV 64 (turns A B | B A | A B): the
  // resumed run's "default" follows the calls "same" recorded there (made 13
  // here, which no calibration of a 20 ms sample takes), not a decision of its own.
  const fs::path run = test::only_run_dir(out);
  const std::vector<std::string> lines = test::read_lines(run / "records.jsonl");
  ASSERT_EQ(lines.size(), 6u);
  nlohmann::json cut = nlohmann::json::parse(lines[2]);
  ASSERT_EQ(cut.at("engine"), "same");
  ASSERT_EQ(cut.at("n_kv"), 64);
  cut["tg_phase"]["tokens_run"] = 8 * 13;
  cut["pp_phase"]["tokens_run"] = 64 * 13;
  std::ofstream(run / "records.jsonl") << lines[0] << "\n"
                                       << lines[1] << "\n"
                                       << cut.dump() << "\n";
  nlohmann::json meta = nlohmann::json::parse(std::ifstream(run / "meta.json"));
  meta["status"] = "interrupted";
  std::ofstream(run / "meta.json") << meta.dump(2);
  const auto resumed = test::run_shell("MOESWEEP_ENGINES=" + test::shell_quoted(registry) + " " +
                                       std::string(test::cli_path()) + " sweep --quiet --resume " +
                                       test::shell_quoted(run));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  int followed = 0;
  for (const auto& rec : test::records_of(run)) {
    if (rec.at("n_kv") != 64 || rec.at("engine") != "default") continue;
    ++followed;
    EXPECT_EQ(rec.at("tg_phase").at("tokens_run"), 8 * 13) << rec.dump();
    EXPECT_EQ(rec.at("pp_phase").at("tokens_run"), 64 * 13) << rec.dump();
  }
  EXPECT_EQ(followed, 1);
}

TEST(EngineAxis, BadEngineListsAreRefusedBeforeAnythingIsWritten) {
  const fs::path registry = registry_with_same_worker();
  const fs::path out = test::scratch_dir() / "runs";
  const std::string env =
      "MOESWEEP_ENGINES=" + test::shell_quoted(registry) + " " + std::string(test::cli_path());
  for (const std::string engines : {"default,default", "default,missing", "default,../x"}) {
    const auto r = test::run_shell(env + " sweep -m kimi-k2.5 --scale tiny -d 0 -r 1 --no-db " +
                                   "--engine " + engines + " --out-dir " + test::shell_quoted(out));
    EXPECT_EQ(r.exit_code, 2) << engines << r.out << r.err;
    EXPECT_FALSE(fs::exists(out)) << engines;
  }
  const auto r = test::run_shell(env + " sweep -m kimi-k2.5 --scale tiny -d 0 -r 1 --no-db " +
                                 "--engine default,missing --out-dir " + test::shell_quoted(out));
  EXPECT_NE(r.err.find("moesweep engine add missing"), std::string::npos) << r.err;
}

// ik_llama.cpp's switches need an ik_llama.cpp engine in the sweep: without
// one they are refused (exit 2, nothing written), never silently ignored.
TEST(EngineAxis, IkLlamaSwitchesWithoutAnIkLlamaEngineAreExitTwo) {
  const fs::path registry = registry_with_same_worker();
  const fs::path out = test::scratch_dir() / "runs";
  const std::string env =
      "MOESWEEP_ENGINES=" + test::shell_quoted(registry) + " " + std::string(test::cli_path());
  for (const std::string knob : {"-fmoe 1", "-rtr 1", "-mla 2", "-amb 512", "--fused-moe 0"}) {
    for (const std::string engines : {"", " --engine default,same"}) {
      const auto r = test::run_shell(env + " sweep -m kimi-k2.5 --scale tiny -d 0 -r 1 --no-db " +
                                     knob + engines + " --out-dir " + test::shell_quoted(out));
      EXPECT_EQ(r.exit_code, 2) << knob << engines << r.out << r.err;
      EXPECT_NE(r.err.find("is an ik_llama.cpp setting"), std::string::npos) << knob << r.err;
      EXPECT_NE(r.err.find("--ik-llama"), std::string::npos) << knob << r.err;
      EXPECT_FALSE(fs::exists(out)) << knob << engines;
    }
  }
  const auto r = test::run_shell(env + " sweep -m kimi-k2.5 --scale tiny -d 0 -r 1 --no-db -mla 4" +
                                 " --out-dir " + test::shell_quoted(out));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("0, 1, 2 or 3"), std::string::npos) << r.err;
}

TEST(EngineRegistry, ListShowsDefaultAndTheRegisteredOnesAndABrokenFileIsExitTwo) {
  const fs::path registry = registry_with_same_worker();
  auto r = test::run_cli("engine list --json --registry " + test::shell_quoted(registry));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const nlohmann::json list = nlohmann::json::parse(r.out);
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].at("name"), "default");
  EXPECT_EQ(list[1].at("name"), "same");
  // The columns line up under their headers however long a name is (a
  // release-3.21.1 once pushed its row out of line).
  RegisteredEngine longer;
  longer.name = "a-name-longer-than-release-3.21.1";
  longer.source = "this build's worker, registered by hand (test)";
  longer.worker = list[1].at("worker").get<std::string>();
  fs::create_directories(registry / longer.name);
  write_engine_file(registry / longer.name / "engine.json", longer);
  r = test::run_cli("engine list --registry " + test::shell_quoted(registry));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::vector<std::string> lines;
  std::istringstream listed(r.out);
  for (std::string line; std::getline(listed, line);) lines.push_back(line);
  ASSERT_GE(lines.size(), 4u) << r.out;
  const size_t release_column = lines[1].find("release");
  for (size_t i = 2; i < lines.size(); ++i) {
    ASSERT_GT(lines[i].size(), release_column) << r.out;
    EXPECT_EQ(lines[i][release_column - 1], ' ') << lines[i];
    EXPECT_NE(lines[i][release_column], ' ') << "row out of line with its header:\n" << r.out;
  }
  std::ofstream(registry / "same" / "engine.json") << R"({"schema": 1, "name": 5})";
  r = test::run_cli("engine list --registry " + test::shell_quoted(registry));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("engine.json"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("name"), std::string::npos) << r.err;
}

TEST(EngineRegistry, BadEngineSpecsAreExitTwoAndLeaveNothing) {
  const fs::path registry = test::scratch_dir() / "engines";
  const std::string add = "engine add --registry " + test::shell_quoted(registry) + " ";
  struct Case {
    std::string args, says;
  };
  const fs::path not_llama = test::scratch_dir() / "not-llama";
  fs::create_directories(not_llama);
  const std::vector<Case> cases = {
      {"pr --llama-cpp /nonexistent/llama.cpp", "not a llama.cpp checkout"},
      {"pr --llama-cpp " + test::shell_quoted(not_llama), "not a llama.cpp checkout"},
      {"default --release 3.22.1", "this moesweep's own worker"},
      {"../up --release 3.22.1", "not an engine name"},
      {"pr", "exactly one of --release VERSION, --llama-cpp DIR, --ik-llama DIR and --exec PATH"},
      {"pr --release 3.22.1 --ik-llama " + test::shell_quoted(not_llama), "exactly one of"},
      {"pr --ik-llama " + test::shell_quoted(not_llama), "not an ik_llama.cpp checkout"},
      // mainline given as ik_llama.cpp: told apart by ik's iqk kernels
      {"pr --ik-llama " +
           test::shell_quoted(fs::path(test::source_dir()) / "third_party" / "llama.cpp"),
       "register it with --llama-cpp DIR"},
      {"pr --release 3.22.1 --cmake-flag GGML_AVX512=OFF", "not a CMake -DNAME=VALUE"},
      {"pr --release 9.9.9", "no pinned llama.cpp release"},
  };
  for (const Case& c : cases) {
    const auto r = test::run_cli(add + c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_FALSE(fs::exists(registry / "pr")) << c.args;
  }
  // A checkout whose build fails: exit 2 with the build log's tail, nothing registered.
  const fs::path broken = test::scratch_dir() / "broken-llama";
  fs::create_directories(broken / "include");
  std::ofstream(broken / "include" / "llama.h") << "#error not a real llama.h\n";
  const auto r = test::run_cli(add + "broken --llama-cpp " + test::shell_quoted(broken));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("failed"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(registry / "broken"));
  EXPECT_TRUE(fs::exists(registry / ".broken.failed.log"));
  // A name taken: exit 2, the registered engine untouched.
  fs::create_directories(registry / "taken");
  std::ofstream(registry / "taken" / "engine.json") << "{}";
  const auto taken = test::run_cli(add + "taken --release 3.22.1");
  EXPECT_EQ(taken.exit_code, 2) << taken.out << taken.err;
  EXPECT_NE(taken.err.find("registered already"), std::string::npos) << taken.err;
  EXPECT_TRUE(fs::exists(registry / "taken" / "engine.json"));
}

}  // namespace
}  // namespace moesweep
