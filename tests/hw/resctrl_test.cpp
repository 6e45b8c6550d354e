// resctrl (issue 11 §3) against recorded trees in tests/data/resctrl: the real
// thing needs bare metal with Intel RDT / AMD PQoS, which no test machine
// here has. What moesweep reads (cbm_mask, min_cbm_bits, num_closids, the
// schemata's domains, MB granularity), the lines it writes, the refusals at
// plan time, and the group's life (made, threads moved in, removed) in a copy.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>

#include "hw/resctrl.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;

fs::path recorded(const std::string& name) {
  return fs::path(MOESWEEP_TEST_DATA) / "resctrl" / name;
}

std::string error_of(const ResctrlInfo& info, std::vector<int> ways, std::vector<int> bw) {
  try {
    check_resctrl_axes(info, ways, bw);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(RecordedResctrlTree, IntelCatAndMbaAreReadFromInfoAndSchemata) {
  const ResctrlInfo r = probe_resctrl(recorded("intel-cat-mba"));
  EXPECT_TRUE(r.mounted);
  EXPECT_TRUE(r.l3_cat) << r.why_no_l3;
  EXPECT_EQ(r.cbm_bits, 11);  // 0x7ff
  EXPECT_EQ(r.num_closids, 16);
  EXPECT_EQ(r.l3_domains, (std::vector<int>{0, 1}));
  EXPECT_TRUE(r.mba) << r.why_no_mba;
  EXPECT_EQ(r.bw_min, 10);
  EXPECT_EQ(l3_schemata_line(r, 4), "L3:0=f;1=f");
  EXPECT_EQ(mb_schemata_line(r, 55), "MB:0=50;1=50");  // down to the 10% granularity
  EXPECT_EQ(mb_schemata_line(r, 3), "MB:0=10;1=10");   // never below min_bandwidth
  EXPECT_EQ(error_of(r, {1, 4, 11}, {10, 100}), "");
}

TEST(RecordedResctrlTree, AmdL3QosHasSixteenDomainsAndNoMba) {
  const ResctrlInfo r = probe_resctrl(recorded("amd-l3-qos"));
  EXPECT_TRUE(r.l3_cat);
  EXPECT_EQ(r.cbm_bits, 16);
  EXPECT_EQ(r.l3_domains.size(), 16u);
  EXPECT_EQ(l3_schemata_line(r, 2).substr(0, 14), "L3:0=3;1=3;2=3");
  EXPECT_FALSE(r.mba);
  const std::string msg = error_of(r, {}, {50});
  EXPECT_NE(msg.find("--mem-bw-percent cannot run here"), std::string::npos) << msg;
  EXPECT_NE(msg.find("no memory bandwidth allocation"), std::string::npos) << msg;
}

TEST(RecordedResctrlTree, WaysBeyondTheMaskAreRefused) {
  const ResctrlInfo r = probe_resctrl(recorded("intel-cat-mba"));
  const std::string msg = error_of(r, {12}, {});
  EXPECT_NE(msg.find("--l3-ways 12: this L3 has 11 ways"), std::string::npos) << msg;
  EXPECT_NE(error_of(r, {0}, {}), "");
}

TEST(RecordedResctrlTree, MountedWithoutCatIsRefusedWithTheReason) {
  const ResctrlInfo r = probe_resctrl(recorded("mounted-no-cat"));
  EXPECT_TRUE(r.mounted);
  EXPECT_FALSE(r.l3_cat);
  const std::string msg = error_of(r, {4}, {});
  EXPECT_NE(msg.find("no L3 cache allocation"), std::string::npos) << msg;
  EXPECT_NE(msg.find("mount -t resctrl"), std::string::npos) << msg;  // what would make it work
}

TEST(RecordedResctrlTree, AbsentRootIsRefusedAsNotMounted) {
  const ResctrlInfo r = probe_resctrl(test::scratch_dir() / "no-resctrl-here");
  EXPECT_FALSE(r.mounted);
  const std::string msg = error_of(r, {4}, {});
  EXPECT_NE(msg.find("not mounted"), std::string::npos) << msg;
}

TEST(RecordedResctrlTree, GroupIsMadeFilledAndRemoved) {
  const fs::path root = test::scratch_dir() / "resctrl";
  fs::copy(recorded("intel-cat-mba"), root, fs::copy_options::recursive);
  const ResctrlInfo r = probe_resctrl(root);
  fs::path dir;
  {
    ResctrlGroup group(r, 4, 50);
    dir = group.dir();
    ASSERT_TRUE(fs::is_directory(dir));
    std::ifstream schemata(dir / "schemata");
    std::string l3, mb;
    std::getline(schemata, l3);
    std::getline(schemata, mb);
    EXPECT_EQ(l3, "L3:0=f;1=f");
    EXPECT_EQ(mb, "MB:0=50;1=50");
    std::ifstream tasks(dir / "tasks");
    std::string tid;
    int n = 0;
    while (std::getline(tasks, tid)) n += fs::exists("/proc/self/task/" + tid);
    EXPECT_GE(n, 1);  // this test's own thread(s)
  }
  EXPECT_FALSE(fs::exists(dir));
}

TEST(RecordedResctrlTree, GroupIsRemovedWhenAnErrorUnwinds) {
  const fs::path root = test::scratch_dir() / "resctrl";
  fs::copy(recorded("amd-l3-qos"), root, fs::copy_options::recursive);
  fs::path dir;
  try {
    ResctrlGroup group(probe_resctrl(root), 2, 0);
    dir = group.dir();
    throw std::runtime_error("a point failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_FALSE(dir.empty());
  EXPECT_FALSE(fs::exists(dir));
}

TEST(RecordedResctrlTree, StaleGroupsOfDeadRunsAreRemoved) {
  const fs::path root = test::scratch_dir() / "resctrl";
  fs::copy(recorded("amd-l3-qos"), root, fs::copy_options::recursive);
  fs::create_directories(root / "moesweep-999999999");  // no such process
  fs::create_directories(root / ("moesweep-" + std::to_string(::getpid())));
  fs::create_directories(root / "other-tool");
  EXPECT_EQ(remove_stale_resctrl_groups(root), 1);
  EXPECT_FALSE(fs::exists(root / "moesweep-999999999"));
  EXPECT_TRUE(fs::exists(root / ("moesweep-" + std::to_string(::getpid()))));
  EXPECT_TRUE(fs::exists(root / "other-tool"));
}

}  // namespace
}  // namespace moesweep

namespace moesweep {
namespace {

// Issue 11's acceptance check, through the real CLI: where resctrl is absent
// (these VMs) the axis is refused at plan time, exit 2, with why and the fix.
TEST(RecordedResctrlTree, L3WaysWithoutResctrlExitsTwoAtPlanTime) {
  const std::string root = (test::scratch_dir() / "absent").string();
  for (const char* flag : {"--l3-ways 4", "--mem-bw-percent 50"}) {
    SCOPED_TRACE(flag);
    const test::CommandResult r =
        test::run_shell("MOESWEEP_RESCTRL_ROOT=" + root + " " + MOESWEEP_CLI +
                        std::string(" sweep ") + flag + " -d 0 --dry-run --no-db");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("cannot run here: no resctrl at"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("mount -t resctrl"), std::string::npos) << r.err;
  }
  // With a recorded tree that offers both, the same flags plan.
  const test::CommandResult ok = test::run_shell(
      "MOESWEEP_RESCTRL_ROOT=" + recorded("intel-cat-mba").string() + " " + MOESWEEP_CLI +
      " sweep --l3-ways 2,4 --mem-bw-percent 50 -d 0 --dry-run --no-db");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("2 model load(s)"), std::string::npos) << ok.out;
}

}  // namespace
}  // namespace moesweep
