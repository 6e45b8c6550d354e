#pragma once
// resctrl: the kernel's cache allocation (Intel CAT, AMD L3 QoS) and memory
// bandwidth allocation (Intel MBA, AMD MBE), the causal test of the L3
// hypothesis on bare metal (issue 11 §3). moesweep makes its own group
// (moesweep-<pid>) under the resctrl root, writes the group's schemata, moves
// every thread of the process into it for the points that ask for it, and
// removes the group afterwards (the kernel moves the tasks back to the
// default group when a group is removed). The root is /sys/fs/resctrl, or
// $MOESWEEP_RESCTRL_ROOT (tests run against recorded trees there).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace moesweep {

struct ResctrlInfo {
  std::filesystem::path root;
  bool mounted = false;  // the root holds a resctrl tree (info/ and schemata)
  // L3 cache allocation
  bool l3_cat = false;
  int cbm_bits = 0;             // ways: set bits of info/L3/cbm_mask
  int min_cbm_bits = 1;         // the fewest ways a mask may have
  int num_closids = 0;          // groups the hardware can tell apart (root included)
  std::vector<int> l3_domains;  // cache ids, from the root's "L3:" schemata line
  // memory bandwidth allocation
  bool mba = false;
  int bw_min = 0, bw_gran = 0;  // percent
  std::vector<int> mb_domains;
  std::string why_no_l3, why_no_mba;  // set when l3_cat / mba is false
};

// Reads the tree at `root` (default: resctrl_root()); never throws.
ResctrlInfo probe_resctrl(const std::filesystem::path& root = {});
std::filesystem::path resctrl_root();

// "L3:0=f;1=f": the `ways` lowest ways of every L3 domain.
std::string l3_schemata_line(const ResctrlInfo& info, int ways);
// "MB:0=50;1=50": `percent` rounded down to the granularity, at least bw_min.
std::string mb_schemata_line(const ResctrlInfo& info, int percent);

// Plan time: UserError (exit 2) when --l3-ways / --mem-bw-percent cannot run
// here, saying why and what would make it work; also for values the
// hardware refuses (more ways than the mask has, fewer than min_cbm_bits).
void check_resctrl_axes(const ResctrlInfo& info, const std::vector<int>& l3_ways,
                        const std::vector<int>& mem_bw_percent);

// One allocation, held for its lifetime: creates <root>/moesweep-<pid>,
// writes the schemata lines, moves every thread of this process in. The
// destructor removes the group (threads go back to the default group), on
// errors and Ctrl-C as well, since the sweep unwinds on both.
class ResctrlGroup {
 public:
  // l3_ways / mb_percent 0: not limited.
  ResctrlGroup(const ResctrlInfo& info, int l3_ways, int mb_percent);
  ~ResctrlGroup();
  ResctrlGroup(const ResctrlGroup&) = delete;
  ResctrlGroup& operator=(const ResctrlGroup&) = delete;
  const std::filesystem::path& dir() const { return dir_; }
  // Moves every thread of process `pid` (0: this one) into the group; threads
  // they start later (threadpools) are born in it. The engine worker is
  // adopted after each start.
  void adopt_threads(int pid = 0) const;

 private:
  std::filesystem::path dir_;
};

// Removes moesweep-<pid> groups whose process no longer exists (a run that
// was killed before it could clean up). Returns how many were removed.
int remove_stale_resctrl_groups(const std::filesystem::path& root);

}  // namespace moesweep
