// Exit codes as documented (issue 20, "Exit codes as documented"): the CLI
// walked over a table of bad files and bad values, each of the issue's
// reproducers among them. Every one ends with exit 2 and the three-part
// message naming the file (or flag) and the field, never "internal error"
// (exit 1), never a crash, and never a directory written outside its folder.
// None needs the engine: every refusal comes before a model is loaded.
#include <gtest/gtest.h>
#include <zstd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "support/test_support.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;

const fs::path kRound1 = fs::path(MOESWEEP_TEST_DATA) / "runs" / "round1-sweep";

// A copy of the round-1 run directory with one meta.json field set.
fs::path run_dir(const fs::path& where, const std::string& pointer, const nlohmann::json& value) {
  fs::create_directories(where);
  fs::copy(kRound1, where, fs::copy_options::overwrite_existing | fs::copy_options::recursive);
  nlohmann::json meta = read_json_file(where / "meta.json", "test");
  if (!pointer.empty()) meta[nlohmann::json::json_pointer(pointer)] = value;
  std::ofstream(where / "meta.json") << meta.dump(2);
  return where;
}

fs::path write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

std::string deep(int levels) {
  return std::string(levels, '[') + std::string(levels, ']');
}

// A zstd frame of `raw` (the trace header, then what follows).
std::string zstd(const std::string& raw) {
  std::string out(ZSTD_compressBound(raw.size()), '\0');
  out.resize(ZSTD_compress(out.data(), out.size(), raw.data(), raw.size(), 3));
  return out;
}

const std::string kTraceHeader =
    R"({"path":"m.gguf","arch":"test","description":"","n_layer":2,"n_expert":4,)"
    R"("n_expert_used":1,"expert_bytes":[0,1048576],"hot_bytes":3145728,)"
    R"("routed_bytes_total":4194304,"extra":{}})";

std::string trace_with_header(const std::string& header, const std::string& steps = "") {
  return zstd("MOESWEEP-ROUTING-TRACE 1\n" + header + "\n" + steps);
}

struct Case {
  const char* what;
  // Makes the files under `dir` and returns the moesweep arguments.
  std::function<std::string(const fs::path& dir)> args;
  std::vector<std::string> says;  // in stderr, the file and the field among them
};

std::vector<Case> cases() {
  std::vector<Case> c;
  // 1: crashes.
  c.push_back({"baseline add, meta.json 100k deep",
               [](const fs::path& d) {
                 const fs::path run = run_dir(d / "run", "", nullptr);
                 write(run / "meta.json", "{\"a\": " + deep(100000) + "}");
                 return "baseline add " + test::shell_quoted(run) + " " +
                        test::shell_quoted(d / "store");
               },
               {"meta.json' nests arrays/objects 100001 levels deep"}});
  c.push_back({"trace -t 100000",
               [](const fs::path& d) {
                 return "trace " + test::shell_quoted(d / "none.gguf") + " -t 100000 --out-dir " +
                        test::shell_quoted(d / "out");
               },
               {"--threads: value 100000 is too large", "GGML_MAX_N_THREADS"}});
  // 2: a 20k-deep line appended to records.jsonl.
  c.push_back({"baseline add, a 20k-deep records line",
               [](const fs::path& d) {
                 const fs::path run = run_dir(d / "run", "", nullptr);
                 std::ofstream(run / "records.jsonl", std::ios::app) << deep(20000) << "\n";
                 return "baseline add " + test::shell_quoted(run) + " " +
                        test::shell_quoted(d / "store");
               },
               {"records.jsonl:3: not valid JSON (a syntax error"}});
  // 3: paths from data.
  for (const char* id : {"../../x", "/tmp/abs-x", "", ".", "a/b"})
    c.push_back({"baseline add, run_id from the file",
                 [id](const fs::path& d) {
                   return "baseline add " + test::shell_quoted(run_dir(d / "run", "/run_id", id)) +
                          " " + test::shell_quoted(d / "store");
                 },
                 {"meta.json: the run id", "cannot name a folder"}});
  // 5: silently wrong.
  c.push_back({"compare, a truncated meta.json on one side",
               [](const fs::path& d) {
                 const fs::path a = run_dir(d / "a", "", nullptr);
                 const fs::path b = run_dir(d / "b", "/build/cpu/family", 6);
                 write(b / "meta.json", "{\"run_id\": \"b\", \"build\": {\"cpu\": {\"fam");
                 return "compare " + test::shell_quoted(a) + " " + test::shell_quoted(b);
               },
               {"b/meta.json' is not valid JSON"}});
  c.push_back({"compare, an over-deep meta.json",
               [](const fs::path& d) {
                 const fs::path a = run_dir(d / "a", "", nullptr);
                 const fs::path b = run_dir(d / "b", "/deep", nullptr);
                 write(b / "meta.json", "{\"run_id\": \"b\", \"deep\": " + deep(1000) + "}");
                 return "compare " + test::shell_quoted(a) + " " + test::shell_quoted(b);
               },
               {"b/meta.json' nests arrays/objects 1001 levels deep"}});
  c.push_back({"trace header: n_expert_used above n_expert",
               [](const fs::path& d) {
                 std::string h = kTraceHeader;
                 h.replace(h.find("\"n_expert_used\":1"), 17, "\"n_expert_used\":9");
                 return "l3 " + test::shell_quoted(write(d / "t.zst", trace_with_header(h))) +
                        " --no-plot";
               },
               {"t.zst': field 'header.n_expert_used' is 9", "an integer from 1 to 4"}});
  c.push_back({"trace header: n_layer 2^32+2",
               [](const fs::path& d) {
                 std::string h = kTraceHeader;
                 h.replace(h.find("\"n_layer\":2"), 11, "\"n_layer\":4294967298");
                 return "l3 " + test::shell_quoted(write(d / "t.zst", trace_with_header(h))) +
                        " --no-plot";
               },
               {"field 'header.n_layer' is 4294967298"}});
  for (const char* bytes : {"-5", "18000000000000000000", "1.5e30"})
    c.push_back({"trace header: expert bytes",
                 [bytes](const fs::path& d) {
                   std::string h = kTraceHeader;
                   h.replace(h.find("[0,1048576]"), 11, std::string("[0,") + bytes + "]");
                   return "l3 " + test::shell_quoted(write(d / "t.zst", trace_with_header(h))) +
                          " --no-plot";
                 },
                 {"field 'header.expert_bytes'"}});
  c.push_back({"trace -p 0 -n 0",
               [](const fs::path& d) {
                 return "trace " + test::shell_quoted(d / "none.gguf") + " -p 0 -n 0 --out-dir " +
                        test::shell_quoted(d / "out");
               },
               {"--prompt 0 --gen 0 traces no token"}});
  for (const char* t :
       {"--request-timeout 0", "--request-timeout -5", "--ready-timeout 0", "--ready-timeout -1"})
    c.push_back({"serve-bench timeouts",
                 [t](const fs::path& d) {
                   return std::string("serve-bench --url http://127.0.0.1:9 --no-db ") + t +
                          " --out-dir " + test::shell_quoted(d / "out");
                 },
                 {std::string(t).substr(0, std::string(t).find(' ')), "is not a time to wait"}});
  c.push_back({"workload: n_predict 2^32+16",
               [](const fs::path& d) {
                 return "serve-bench --url http://127.0.0.1:9 --no-db -w " +
                        test::shell_quoted(
                            write(d / "w.json", R"({"kind": "batch", "n_predict": 4294967312})")) +
                        " --out-dir " + test::shell_quoted(d / "out");
               },
               {"w.json: field 'n_predict' is 4294967312"}});
  // 2: a multi-turn workload whose sizes overflowed int (then llama-server -c 0).
  c.push_back({"workload: 8200 turns of 262144 tokens",
               [](const fs::path& d) {
                 return "serve-bench --url http://127.0.0.1:9 --no-db -w " +
                        test::shell_quoted(
                            write(d / "w.json", R"({"kind": "multi-turn", "suffix_tokens": 262144,
                                                  "requests": 8200})")) +
                        " --out-dir " + test::shell_quoted(d / "out");
               },
               {"w.json: a request of this workload holds", "at most 16777216 tokens"}});
  // 2: bounded reads of traces.
  c.push_back({"l3 /dev/zero",
               [](const fs::path&) { return std::string("l3 /dev/zero"); },
               {"'/dev/zero' is not a regular file"}});
  c.push_back({"l3 on a header that never ends (bomb)",
               [](const fs::path& d) {
                 return "l3 " +
                        test::shell_quoted(write(d / "t.zst", zstd("MOESWEEP-ROUTING-TRACE 1\n" +
                                                                   std::string(64u << 20, 'a')))) +
                        " --no-plot";
               },
               {"t.zst' has a header line longer than 1024 KiB"}});
  c.push_back({"predict --trace on a zero bomb",
               [](const fs::path& d) {
                 return "predict --hardware epyc-9175f --model kimi-k2.5 --quant Q4_K_S --trace " +
                        test::shell_quoted(write(d / "t.zst", zstd(std::string(256u << 20, '\0'))));
               },
               {"t.zst' does not start with the trace header"}});
  // 6: user mistakes that were "internal error".
  for (const char* field : {"/build/cpu/vendor", "/run_id"})
    c.push_back({"baseline add, a number where text belongs",
                 [field](const fs::path& d) {
                   return "baseline add " + test::shell_quoted(run_dir(d / "run", field, 5)) + " " +
                          test::shell_quoted(d / "s");
                 },
                 {"meta.json: field '", "is 5", "a string"}});
  c.push_back({"baseline add, family \"25\"",
               [](const fs::path& d) {
                 return "baseline add " +
                        test::shell_quoted(run_dir(d / "run", "/build/cpu/family", "25")) + " " +
                        test::shell_quoted(d / "s");
               },
               {"meta.json: field 'build.cpu.family' is \"25\""}});
  c.push_back({"trace --ubatch-size 2000000000",
               [](const fs::path& d) {
                 return "trace " + test::shell_quoted(d / "none.gguf") +
                        " --ubatch-size 2000000000 --out-dir " + test::shell_quoted(d / "out");
               },
               {"--ubatch-size: value 2000000000 is too large"}});
  c.push_back({"sweep --resume, mistyped meta.json",
               [](const fs::path& d) {
                 return "sweep --resume " +
                        test::shell_quoted(run_dir(d / "run", "/settings", "x"));
               },
               {"meta.json: 'settings' is \"x\""}});
  c.push_back({"merge --out that is a file",
               [](const fs::path& d) {
                 const fs::path run = run_dir(d / "runs" / "r", "/shard",
                                              {{"plan_id", "ab"}, {"index", 0}, {"count", 1}});
                 return "merge " + test::shell_quoted(run) + " --no-db --out " +
                        test::shell_quoted(write(d / "file", "x"));
               },
               {"exists and is not a directory"}});
  c.push_back({"merge, a mistyped shard object",
               [](const fs::path& d) {
                 const fs::path run = run_dir(d / "runs" / "r", "/shard",
                                              {{"plan_id", "ab"}, {"index", "0"}, {"count", 1}});
                 return "merge " + test::shell_quoted(run) + " --no-db --out " +
                        test::shell_quoted(d / "m");
               },
               {"meta.json: field 'shard.index' is \"0\""}});
  c.push_back({"plan --out a symlink loop",
               [](const fs::path& d) {
                 fs::create_symlink(d / "loop", d / "loop");
                 return "plan --profile ci --shards 1 --out " +
                        test::shell_quoted(d / "loop" / "p");
               },
               {"loop"}});
  c.push_back({"plan --out in /proc",
               [](const fs::path&) {
                 return std::string("plan --profile ci --shards 1 --out /proc/moesweep-plan");
               },
               {"/proc/moesweep-plan"}});
  return c;
}

TEST(BadFilesTable, EveryCaseExitsTwoNamingTheFileAndTheField) {
  const fs::path root = test::scratch_dir();
  int n = 0;
  for (const Case& c : cases()) {
    const fs::path dir = root / std::to_string(n++);
    fs::create_directories(dir);
    const std::string args = c.args(dir);
    const test::CommandResult r = test::run_cli(args);
    SCOPED_TRACE(std::string(c.what) + ": moesweep " + args);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
    for (const char* part : {"moesweep: error: ", "\n  expected: ", "\n  fix: "})
      EXPECT_NE(r.err.find(part), std::string::npos) << r.err;
    for (const std::string& s : c.says) EXPECT_NE(r.err.find(s), std::string::npos) << r.err;
    // A refused trace leaves no run directory; nothing lands in a store.
    EXPECT_FALSE(fs::exists(dir / "out") && !fs::is_empty(dir / "out")) << "a directory was left";
    EXPECT_FALSE(fs::exists(dir / "store")) << "a baseline was written";
  }
  // The traversal targets of the run_id cases were never written.
  EXPECT_FALSE(fs::exists("/tmp/abs-x"));
}

}  // namespace
}  // namespace moesweep
