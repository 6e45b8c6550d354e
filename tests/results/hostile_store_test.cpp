// The results layer under a hostile environment: several sweeps creating one
// new database at the same instant, a disk that fills up, paths that cannot
// hold a database; and records.jsonl files that are not what they claim.
// Every failure a user can fix is a UserError (exit 2) that says so.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "results/run_source.hpp"
#include "results/sqlite_store.hpp"
#include "sample_sets.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

using test::make_record;
using test::normal_samples;

RunMeta meta_for(const std::string& run_id, const std::filesystem::path& dir) {
  RunMeta m;
  m.run_id = run_id;
  m.name = "unit";
  m.run_dir = (dir / run_id).string();  // no records.jsonl there: nothing to copy in
  return m;
}

// What a UserError says, all three parts, for assertions.
std::string user_error_text(const std::function<void()>& f, int* code) {
  try {
    f();
  } catch (const UserError& e) {
    *code = e.exit_code();
    return e.problem() + "\n" + e.expected() + "\n" + e.fix();
  } catch (const std::exception& e) {
    *code = 1;
    return std::string("not a UserError: ") + e.what();
  }
  *code = 0;
  return "no error";
}

TEST(HostileStore, SweepsCreatingOneNewDatabaseAtOnceAllSucceed) {
  // Each round: a fresh path, 4 writers released together; every one must
  // open the file, add its run and find all four schemas' worth of tables.
  constexpr int kRounds = 15, kWriters = 4;
  for (int round = 0; round < kRounds; ++round) {
    const auto db = test::scratch_dir() / ("race-" + std::to_string(round)) / "new.sqlite";
    std::atomic<int> ready{0};
    std::vector<std::string> errors(kWriters);
    std::vector<std::thread> writers;
    for (int w = 0; w < kWriters; ++w) {
      writers.emplace_back([&, w] {
        ++ready;
        while (ready.load() < kWriters) {
        }
        try {
          SqliteSink sink(db);
          const std::string id = "run-" + std::to_string(w);
          sink.begin(meta_for(id, db.parent_path()));
          sink.point(make_record(id, 0, 1, 0, normal_samples(w, 3, 100, 1),
                                 normal_samples(w + 9, 3, 10, 0.1)));
          sink.end(meta_for(id, db.parent_path()), RunStatus::kComplete);
        } catch (const std::exception& e) {
          errors[w] = e.what();
        }
      });
    }
    for (auto& t : writers) t.join();
    for (int w = 0; w < kWriters; ++w)
      EXPECT_EQ(errors[w], "") << "round " << round << " writer " << w;
    SqliteStore store(db, SqliteStore::Mode::kReadOnly);
    EXPECT_EQ(store.list_runs().size(), static_cast<size_t>(kWriters)) << "round " << round;
  }
}

TEST(HostileStore, PathsThatCannotHoldADatabaseAreRefusedBeforeSqliteSeesThem) {
  const auto dir = test::scratch_dir();
  struct Case {
    std::filesystem::path path;
    const char* says;
  };
  const Case cases[] = {
      {"", "the results database path is empty"},
      {"/dev/null", "'/dev/null' is a device"},
      {dir, "is a directory"},
      {"/proc/no-such-dir/db.sqlite", "cannot create directory '/proc/no-such-dir'"},
  };
  for (const Case& c : cases) {
    int code = -1;
    const std::string text =
        user_error_text([&] { SqliteStore(c.path, SqliteStore::Mode::kReadWrite); }, &code);
    EXPECT_EQ(code, 2) << c.path << ": " << text;
    EXPECT_NE(text.find(c.says), std::string::npos) << c.path << ": " << text;
  }
}

// A tmpfs of a few hundred kB: root can mount one; elsewhere the test skips.
class SmallDisk {
 public:
  explicit SmallDisk(const std::filesystem::path& where) : dir_(where) {
    std::filesystem::create_directories(dir_);
    mounted_ = ::mount("tmpfs", dir_.c_str(), "tmpfs", 0, "size=256k") == 0;
  }
  ~SmallDisk() {
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }

 private:
  std::filesystem::path dir_;
  bool mounted_ = false;
};

TEST(HostileStore, ADiskThatFillsUpMidRunIsAClearUserError) {
  SmallDisk disk(test::scratch_dir() / "small");
  if (!disk.mounted())
    GTEST_SKIP() << "cannot mount a tmpfs here (needs root): " << strerror(errno);
  const auto db = test::scratch_dir() / "small" / "full.sqlite";
  int code = -1;
  const std::string text = user_error_text(
      [&] {
        SqliteSink sink(db);
        sink.begin(meta_for("fill", test::scratch_dir()));
        // ~20 kB per point (its samples and the JSON copy): 256 kB fills within a few dozen.
        for (int i = 0; i < 2000; ++i) {
          Record r = make_record("fill", i, 1, i, normal_samples(i, 400, 100, 1),
                                 normal_samples(i + 1, 400, 10, 0.1));
          sink.point(r);
        }
      },
      &code);
  EXPECT_EQ(code, 2) << text;
  EXPECT_NE(text.find("is full"), std::string::npos) << text;
  EXPECT_NE(text.find("--resume"), std::string::npos) << text;
}

std::filesystem::path write_file(const std::string& name, const std::string& text) {
  const auto path = test::scratch_dir() / name;
  std::ofstream(path) << text;
  return path;
}

const std::string kGoodLine =
    R"({"n_kv_max": 512, "n_batch": 64, "n_ubatch": 64, "flash_attn": 0, "n_gpu_layers": 0, )"
    R"("n_threads": 1, "n_threads_batch": 1, "pp": 64, "tg": 2, "n_kv": 0, "t_pp": 0.5, )"
    R"("speed_pp": 128.0, "t_tg": 0.1, "speed_tg": 20.0})";

TEST(HostileJsonl, PlainTextIsAnErrorNamingFileAndLineNotZeroRecords) {
  const auto file = write_file("plain.jsonl", "these are my notes, not records\n");
  int code = -1;
  const std::string text = user_error_text([&] { read_records_jsonl(file); }, &code);
  EXPECT_EQ(code, 2) << text;
  EXPECT_NE(text.find(file.string() + ":1: not valid JSON"), std::string::npos) << text;
}

TEST(HostileJsonl, AJsonObjectThatIsNotARecordIsAnError) {
  const auto file = write_file("other.jsonl", kGoodLine + "\n\n{\"hello\": \"world\"}\n");
  int code = -1;
  const std::string text = user_error_text([&] { read_records_jsonl(file); }, &code);
  EXPECT_EQ(code, 2) << text;
  EXPECT_NE(text.find(file.string() + ":3: a JSON object but not a record"), std::string::npos)
      << text;
}

TEST(HostileJsonl, WrongFieldTypesAreNamedWithTheirLine) {
  std::string wrong_top = kGoodLine;
  wrong_top.replace(wrong_top.find("\"n_threads\": 1"), 14, "\"n_threads\": \"one\"");
  const auto top = write_file("top.jsonl", kGoodLine + "\n" + wrong_top + "\n");
  int code = -1;
  std::string text = user_error_text([&] { read_records_jsonl(top); }, &code);
  EXPECT_EQ(code, 2) << text;
  EXPECT_NE(text.find(":2: 'n_threads' is a string where an integer from -2^31 to 2^31-1 belongs"),
            std::string::npos)
      << text;
  // Never narrowed: 2^32 + 1 threads is no 1 thread.
  std::string wide = kGoodLine;
  wide.replace(wide.find("\"n_threads\": 1"), 14, "\"n_threads\": 4294967297");
  text = user_error_text([&] { read_records_jsonl(write_file("wide.jsonl", wide + "\n")); }, &code);
  EXPECT_NE(text.find(":1: 'n_threads' is 4294967297 where an integer"), std::string::npos) << text;

  const std::string nested = kGoodLine.substr(0, kGoodLine.size() - 1) +
                             R"(, "ok": 1, "pp_phase": {"samples_s": "fast"}})";
  const auto bad_ok = write_file("ok.jsonl", nested + "\n");
  text = user_error_text([&] { read_records_jsonl(bad_ok); }, &code);
  EXPECT_EQ(code, 2) << text;
  EXPECT_NE(text.find(":1: 'ok' is 1 where true/false belongs"), std::string::npos) << text;

  const std::string in_array =
      kGoodLine.substr(0, kGoodLine.size() - 1) + R"(, "pp_phase": {"samples_s": ["fast"]}})";
  const auto bad_array = write_file("array.jsonl", in_array + "\n");
  text = user_error_text([&] { read_records_jsonl(bad_array); }, &code);
  EXPECT_EQ(code, 2) << text;
  EXPECT_NE(text.find(":1: a field has the wrong type"), std::string::npos) << text;
}

TEST(HostileJsonl, MeasurementsNoRunCanGiveAreRefused) {
  // Well typed but impossible: a negative speed or time (in a plain
  // sweep-bench line or in a phase's samples) or a negative depth would be
  // averaged and tested like a real one.
  const std::string head = kGoodLine.substr(0, kGoodLine.size() - 1);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {kGoodLine.substr(0, kGoodLine.find("\"speed_tg\"")) + R"("speed_tg": -3})",
       "the tg phase has tokens per second of -3"},
      {head + R"(, "pp_phase": {"samples_s": [0.5, -0.1], "samples_ts": [128, 128]}})",
       "the pp phase has seconds of -0.1"},
      {kGoodLine.substr(0, kGoodLine.find("\"n_kv\"")) +
           R"("n_kv": -64, "t_pp": 0.5, "speed_pp": 128.0, "t_tg": 0.1, "speed_tg": 20.0})",
       "'n_kv' is -64, a count of tokens that cannot be negative"},
      // Issue 44, item 5: beyond the physical floor of a decode (1 us a micro-batch).
      {head + R"(, "tg_phase": {"samples_s": [0.1, 0.1], "samples_ts": [20, 1e308]}})",
       "the tg phase has a sample of 1e+308 tokens per second, beyond any engine's 1e+06"},
      {head + R"(, "tg_phase": {"samples_s": [0.1, 1e-9], "samples_ts": [20, 20]}})",
       "the tg phase has a sample of 1e-09 s for 2 tokens, below the 2e-06 s no engine can beat"},
      {head + R"(, "pp_phase": {"samples_s": [0.5], "samples_ts": [1e9]}})",
       "the pp phase has a sample of 1e+09 tokens per second, beyond any engine's 6.4e+07"},
  };
  for (const auto& [bad_line, says] : cases) {
    int code = -1;
    const std::string& line = bad_line;  // (clang 14 cannot capture a structured binding)
    const std::string text = user_error_text(
        [&] { read_records_jsonl(write_file("impossible.jsonl", kGoodLine + "\n" + line + "\n")); },
        &code);
    EXPECT_EQ(code, 2) << text;
    EXPECT_NE(text.find(":2: " + says), std::string::npos) << text;
  }
}

TEST(HostileJsonl, ATornLastRecordFromAKilledRunIsStillSkipped) {
  const auto file =
      write_file("torn.jsonl", kGoodLine + "\n" + kGoodLine.substr(0, kGoodLine.size() / 2));
  const std::vector<Record> records = read_records_jsonl(file);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].params.pp, 64);
}

}  // namespace
}  // namespace moesweep
