// The noise signals of a point: steal from recorded /proc/stat snapshots
// (aggregate and per CPU), load average and frequency from files, and on this
// machine numbers or an honest "unavailable" with a reason, never an invention.
#include "hw/noise_probe.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "support/test_support.hpp"

namespace moesweep {
namespace {

using test::kProc;

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

TEST(ProcStat, ReadsTheStealColumnOfEveryCpuLine) {
  const auto stat = read_proc_stat(kProc / "stat-before");
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->all.steal, 49u);
  ASSERT_EQ(stat->per_cpu.size(), 2u);
  EXPECT_EQ(stat->per_cpu.at(0).steal, 21u);
  EXPECT_EQ(stat->per_cpu.at(1).steal, 28u);
  EXPECT_EQ(stat->per_cpu.at(1).total, 26836u + 4992 + 4544 + 4373 + 288 + 0 + 103 + 28);
}

TEST(ProcStat, MissingOrCpulessFileIsNotAReading) {
  EXPECT_FALSE(read_proc_stat(kProc / "no-such-file"));
  const auto path = test::scratch_dir() / "stat";
  write_file(path, "intr 1 2 3\nctxt 5\n");
  EXPECT_FALSE(read_proc_stat(path));
}

TEST(ProcStat, StealIsAFractionOfWallTimeTimesCpus) {
  const auto before = read_proc_stat(kProc / "stat-before");
  const auto after = read_proc_stat(kProc / "stat-after");
  ASSERT_TRUE(before && after);
  NoiseReading all;
  all.wall_s = 10;
  steal_between(*before, *after, {}, 100, all);  // aggregate: 60 jiffies over 2 CPUs
  EXPECT_EQ(all.cpus, 2);
  ASSERT_TRUE(all.steal_fraction);
  EXPECT_DOUBLE_EQ(*all.steal_s, 0.6);
  EXPECT_DOUBLE_EQ(*all.steal_fraction, 0.03);
  EXPECT_TRUE(all.flagged());  // above kStealFlagFraction (2%)

  NoiseReading cpu1;
  cpu1.wall_s = 10;
  steal_between(*before, *after, {1}, 100, cpu1);  // 10 jiffies on one CPU
  EXPECT_EQ(cpu1.cpus, 1);
  EXPECT_DOUBLE_EQ(*cpu1.steal_fraction, 0.01);
  EXPECT_FALSE(cpu1.flagged());

  NoiseReading cpu0;
  cpu0.wall_s = 10;
  steal_between(*before, *after, {0}, 100, cpu0);
  EXPECT_DOUBLE_EQ(*cpu0.steal_fraction, 0.05);
  EXPECT_TRUE(cpu0.flagged());
  EXPECT_TRUE(cpu0.to_json()["steal_flagged"].get<bool>());
}

TEST(ProcStat, ACpuWithoutALineIsUnavailableNotZero) {
  const auto before = read_proc_stat(kProc / "stat-before");
  const auto after = read_proc_stat(kProc / "stat-after");
  NoiseReading r;
  r.wall_s = 10;
  steal_between(*before, *after, {0, 7}, 100, r);
  EXPECT_FALSE(r.steal_fraction);
  EXPECT_NE(r.steal_unavailable.find("cpu7"), std::string::npos);
  const nlohmann::json j = r.to_json();
  EXPECT_TRUE(j["steal_fraction"].contains("unavailable"));
  EXPECT_FALSE(j["steal_flagged"].get<bool>());
}

// cpu0 between the recorded snapshots: user +458, system +200 = 658 busy
// ticks over 10 s; cpu1: user +464, system +200 = 664.
TEST(ProcStat, OtherProcessesTimeIsBusyTimeLessTheEnginesOwn) {
  const auto before = read_proc_stat(kProc / "stat-before");
  const auto after = read_proc_stat(kProc / "stat-after");
  ASSERT_TRUE(before && after);
  EXPECT_EQ(after->per_cpu.at(0).busy - before->per_cpu.at(0).busy, 658u);
  NoiseReading cpu0;
  cpu0.wall_s = 10;
  others_between(*before, *after, {0}, 600, 100, cpu0);  // the engine ran 6.00 s
  ASSERT_TRUE(cpu0.others_fraction) << cpu0.others_unavailable;
  EXPECT_NEAR(*cpu0.others_s, 0.58, 1e-12);
  EXPECT_NEAR(*cpu0.others_fraction, 0.058, 1e-12);
  EXPECT_TRUE(cpu0.others_flagged());  // above kOthersFlagFraction (5%)
  EXPECT_TRUE(cpu0.to_json()["others_flagged"].get<bool>());

  NoiseReading both;
  both.wall_s = 10;
  others_between(*before, *after, {}, 1300, 100, both);  // aggregate line, 2 CPUs
  EXPECT_NEAR(*both.others_fraction, (658 + 664 - 1300) / 100.0 / 20, 1e-12);
  EXPECT_FALSE(both.others_flagged());

  NoiseReading own_more;  // the engine's main thread ran elsewhere too: never below zero
  own_more.wall_s = 10;
  others_between(*before, *after, {0}, 900, 100, own_more);
  EXPECT_EQ(*own_more.others_s, 0.0);
}

TEST(ProcStat, ProcessTicksFromARecordedStatAndACommWithParentheses) {
  // utime 6 + stime 1 ticks, as recorded (tests/data/proc/22017/stat).
  EXPECT_EQ(read_process_ticks(kProc, 22017), 7u);
  const auto dir = test::scratch_dir();
  write_file(dir / "7" / "stat",
             "7 (a) b (c) R 1 7 7 0 -1 4194304 1 0 0 0 250 50 0 0 20 0 3 0 9 1 1 1\n");
  EXPECT_EQ(read_process_ticks(dir, 7), 300u);
  EXPECT_FALSE(read_process_ticks(dir, 8));
}

TEST(NoiseFiles, LoadAverageAndFrequencyFromFiles) {
  const auto dir = test::scratch_dir();
  write_file(dir / "loadavg", "8.74 3.56 1.42 14/186 10488\n");
  EXPECT_DOUBLE_EQ(*read_load_1m(dir / "loadavg"), 8.74);
  EXPECT_FALSE(read_load_1m(dir / "absent"));

  const auto cpu = dir / "cpu";
  std::filesystem::create_directories(cpu / "cpufreq");  // not a cpuN entry: ignored
  write_file(cpu / "cpu0" / "cpufreq" / "scaling_cur_freq", "2000000\n");
  write_file(cpu / "cpu1" / "cpufreq" / "scaling_cur_freq", "3000000\n");
  EXPECT_DOUBLE_EQ(*read_freq_mhz(cpu, {}), 2500.0);
  EXPECT_DOUBLE_EQ(*read_freq_mhz(cpu, {1}), 3000.0);
  std::filesystem::create_directories(dir / "vm" / "cpu0");  // a VM: no cpufreq
  EXPECT_FALSE(read_freq_mhz(dir / "vm", {}));
}

TEST(NoiseProbe, UnreadableSourcesAreRecordedAsUnavailableWithAReason) {
  const auto dir = test::scratch_dir();
  NoiseProbe probe({}, {dir / "stat", dir / "loadavg", dir / "cpu"});
  probe.start();
  const NoiseReading r = probe.finish();
  EXPECT_GE(r.wall_s, 0.0);
  EXPECT_FALSE(r.steal_fraction || r.load_1m || r.freq_mhz || r.others_fraction);
  const nlohmann::json j = r.to_json();
  for (const char* key : {"steal_fraction", "steal_s", "load_1m", "freq_mhz", "others_fraction"})
    EXPECT_FALSE(j[key]["unavailable"].get<std::string>().empty()) << key;
}

TEST(NoiseProbe, ThisMachineGivesNumbersOrHonestReasons) {
  NoiseProbe probe;
  probe.start();
  const NoiseReading r = probe.finish();
  ASSERT_TRUE(r.steal_fraction) << r.steal_unavailable;  // Linux always has /proc/stat
  EXPECT_GE(*r.steal_fraction, 0.0);
  EXPECT_GT(r.cpus, 0);
  ASSERT_TRUE(r.load_1m) << r.load_unavailable;
  ASSERT_TRUE(r.others_fraction) << r.others_unavailable;  // this process's stat is readable
  EXPECT_GE(*r.others_fraction, 0.0);
  if (!r.freq_mhz)
    EXPECT_NE(r.freq_unavailable.find("cpufreq"), std::string::npos);
  else
    EXPECT_GT(*r.freq_mhz, 0.0);
}

}  // namespace
}  // namespace moesweep
