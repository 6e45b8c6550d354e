// Where a shard run starts (cluster/shard_resume.hpp), on run directories made
// here: the newest run of the same plan and shard on the same hardware is
// continued, one on other hardware is named and left alone, a broken one is
// passed over with its reason, and a run of another shard is ignored.
#include <gtest/gtest.h>

#include <fstream>

#include "cluster/shard_resume.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

MachineClass machine(int cpus) {
  MachineClass c;
  c.known = true;
  c.vendor = "GenuineIntel";
  c.family = 6;
  c.model = 85;
  c.logical_cpus = cpus;
  return c;
}

NodeFacts node(int cpus) {
  NodeFacts n;
  n.host = "node-a";
  n.cpu_model = "Test CPU";
  n.logical_cpus = cpus;
  return n;
}

ShardFile shard_file(int index) {
  ShardFile f;
  f.plan_id = "abc123";
  f.index = index;
  f.count = 2;
  return f;
}

void write_run(const std::filesystem::path& dir, int index, int cpus, RunStatus status) {
  std::filesystem::create_directories(dir);
  RunMeta meta;
  meta.run_id = dir.filename().string();
  meta.name = "s";
  meta.status = status;
  meta.machine_class = machine(cpus);
  meta.node = node(cpus);
  meta.shard = shard_meta(shard_file(index));
  std::ofstream(dir / "meta.json") << to_json(meta).dump(2);
}

TEST(ShardResume, ContinuesTheNewestRunOfTheShardOnTheSameHardware) {
  const auto out = test::scratch_dir();
  write_run(out / "20260101-000000-s", 1, 2, RunStatus::kInterrupted);
  write_run(out / "20260102-000000-s", 1, 2, RunStatus::kComplete);
  write_run(out / "20260103-000000-s", 0, 2, RunStatus::kInterrupted);  // another shard
  const ShardStart s = shard_start(shard_file(1), out, machine_class_id(machine(2)), node(2));
  EXPECT_EQ(s.earlier_run, out / "20260102-000000-s");
  EXPECT_TRUE(s.earlier_complete);
  EXPECT_TRUE(s.left_alone.empty());
  EXPECT_TRUE(s.skipped.empty());
}

TEST(ShardResume, ARunOnOtherHardwareIsNamedAndLeftAlone) {
  const auto out = test::scratch_dir();
  write_run(out / "20260101-000000-s", 1, 16, RunStatus::kInterrupted);
  const ShardStart s = shard_start(shard_file(1), out, machine_class_id(machine(2)), node(2));
  EXPECT_TRUE(s.earlier_run.empty());
  ASSERT_EQ(s.left_alone.size(), 1u);
  EXPECT_EQ(s.left_alone[0].run, out / "20260101-000000-s");
  EXPECT_NE(std::find(s.left_alone[0].differences.begin(), s.left_alone[0].differences.end(),
                      "logical_cpus 16 -> 2"),
            s.left_alone[0].differences.end());
}

TEST(ShardResume, ABrokenRunIsPassedOverWithItsReason) {
  const auto out = test::scratch_dir();
  std::filesystem::create_directories(out / "20260101-000000-s");
  std::ofstream(out / "20260101-000000-s" / "meta.json") << "{ not json";
  const ShardStart s = shard_start(shard_file(1), out, machine_class_id(machine(2)), node(2));
  EXPECT_TRUE(s.earlier_run.empty());
  EXPECT_EQ(s.skipped.size(), 1u);
}

TEST(ShardResume, NoOutDirMeansAFreshRun) {
  const ShardStart s = shard_start(shard_file(1), test::scratch_dir() / "absent",
                                   machine_class_id(machine(2)), node(2));
  EXPECT_TRUE(s.earlier_run.empty());
  EXPECT_FALSE(s.earlier_complete);
}

}  // namespace
}  // namespace moesweep
