#include "hw/resctrl.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <signal.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "util/error.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;

constexpr long kResctrlMagic = 0x7655821;  // RDTGROUP_SUPER_MAGIC

std::string first_line(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

int int_file(const fs::path& file, int fallback) {
  const std::string t = first_line(file);
  try {
    return t.empty() ? fallback : std::stoi(t);
  } catch (const std::exception&) {
    return fallback;
  }
}

// The domain ids of the root's schemata line for `resource` ("L3", "MB").
std::vector<int> schemata_domains(const fs::path& root, const std::string& resource) {
  std::ifstream in(root / "schemata");
  std::string line;
  std::vector<int> ids;
  while (std::getline(in, line)) {
    const size_t start = line.find_first_not_of(' ');
    if (start == std::string::npos || line.compare(start, resource.size() + 1, resource + ":") != 0)
      continue;
    std::stringstream entries(line.substr(start + resource.size() + 1));
    std::string entry;
    while (std::getline(entries, entry, ';'))
      if (const size_t eq = entry.find('='); eq != std::string::npos)
        ids.push_back(std::atoi(entry.substr(0, eq).c_str()));
  }
  return ids;
}

void probe_l3(ResctrlInfo& r) {
  const fs::path l3 = r.root / "info" / "L3";
  if (!fs::is_directory(l3)) {
    r.why_no_l3 = fs::is_directory(r.root / "info" / "L3CODE")
                      ? "resctrl is mounted with code/data prioritization (cdp): no plain L3 masks"
                      : "resctrl is mounted but offers no L3 cache allocation (no info/L3: the "
                        "CPU or hypervisor has no Intel CAT / AMD L3 QoS)";
    return;
  }
  const std::string mask = first_line(l3 / "cbm_mask");
  try {
    r.cbm_bits = __builtin_popcountll(std::stoull(mask, nullptr, 16));
  } catch (const std::exception&) {
    r.cbm_bits = 0;
  }
  r.min_cbm_bits = int_file(l3 / "min_cbm_bits", 1);
  r.num_closids = int_file(l3 / "num_closids", 0);
  r.l3_domains = schemata_domains(r.root, "L3");
  if (r.cbm_bits == 0 || r.l3_domains.empty())
    r.why_no_l3 = "info/L3/cbm_mask or the L3 line of the schemata is unreadable";
  else if (r.num_closids < 2)
    r.why_no_l3 = "the hardware offers no class of service besides the default group";
  r.l3_cat = r.why_no_l3.empty();
}

void probe_mba(ResctrlInfo& r) {
  const fs::path mb = r.root / "info" / "MB";
  if (!fs::is_directory(mb)) {
    r.why_no_mba = "resctrl is mounted but offers no memory bandwidth allocation (no info/MB)";
    return;
  }
  r.bw_min = int_file(mb / "min_bandwidth", 10);
  r.bw_gran = int_file(mb / "bandwidth_gran", 10);
  r.mb_domains = schemata_domains(r.root, "MB");
  if (r.mb_domains.empty()) r.why_no_mba = "the schemata has no MB line";
  if (int_file(mb / "num_closids", 0) < 2)
    r.why_no_mba = "the hardware offers no class of service besides the default group";
  r.mba = r.why_no_mba.empty();
}

bool is_real_resctrl(const fs::path& root) {
  struct statfs s {};
  return ::statfs(root.c_str(), &s) == 0 && static_cast<long>(s.f_type) == kResctrlMagic;
}

void write_file(const fs::path& file, const std::string& text) {
  std::ofstream out(file);
  out << text << "\n";
  out.flush();
  if (!out) {
    const std::string status =
        first_line(file.parent_path().parent_path() / "info" / "last_cmd_status");
    throw std::runtime_error(fmt::format("resctrl refused '{}' in {}{}", text, file.string(),
                                         status.empty() ? "" : ": " + status));
  }
}

const char kNotHere[] =
    "a bare-metal Linux with Intel RDT or AMD PQoS, resctrl mounted: `sudo mount -t resctrl "
    "resctrl /sys/fs/resctrl` (kernel CONFIG_X86_CPU_RESCTRL), run as root or with write access "
    "to it; cloud VMs rarely expose it";

}  // namespace

fs::path resctrl_root() {
  if (const char* env = std::getenv("MOESWEEP_RESCTRL_ROOT"); env && *env) return env;
  return "/sys/fs/resctrl";
}

ResctrlInfo probe_resctrl(const fs::path& root) {
  ResctrlInfo r;
  r.root = root.empty() ? resctrl_root() : root;
  std::error_code ec;
  r.mounted = fs::is_directory(r.root / "info", ec) && fs::exists(r.root / "schemata", ec);
  if (!r.mounted) {
    r.why_no_l3 = r.why_no_mba = fmt::format("no resctrl at {} (not mounted)", r.root.string());
    return r;
  }
  probe_l3(r);
  probe_mba(r);
  return r;
}

std::string l3_schemata_line(const ResctrlInfo& info, int ways) {
  const uint64_t mask = ways >= 64 ? ~uint64_t{0} : (uint64_t{1} << ways) - 1;
  std::vector<std::string> parts;
  for (int id : info.l3_domains) parts.push_back(fmt::format("{}={:x}", id, mask));
  return fmt::format("L3:{}", fmt::join(parts, ";"));
}

std::string mb_schemata_line(const ResctrlInfo& info, int percent) {
  const int gran = std::max(1, info.bw_gran);
  const int value = std::max(info.bw_min, percent / gran * gran);
  std::vector<std::string> parts;
  for (int id : info.mb_domains) parts.push_back(fmt::format("{}={}", id, value));
  return fmt::format("MB:{}", fmt::join(parts, ";"));
}

void check_resctrl_axes(const ResctrlInfo& info, const std::vector<int>& l3_ways,
                        const std::vector<int>& mem_bw_percent) {
  if (!l3_ways.empty() && !info.l3_cat) {
    throw UserError(fmt::format("--l3-ways cannot run here: {}", info.why_no_l3),
                    fmt::format("L3 cache allocation through resctrl: {}", kNotHere),
                    "run on such a machine, or leave --l3-ways out");
  }
  if (!mem_bw_percent.empty() && !info.mba) {
    throw UserError(fmt::format("--mem-bw-percent cannot run here: {}", info.why_no_mba),
                    fmt::format("memory bandwidth allocation through resctrl: {}", kNotHere),
                    "run on such a machine, or leave --mem-bw-percent out");
  }
  for (int w : l3_ways)
    if (w < info.min_cbm_bits || w > info.cbm_bits) {
      throw UserError(fmt::format("--l3-ways {}: this L3 has {} ways", w, info.cbm_bits),
                      fmt::format("{} to {} ways (info/L3: min_cbm_bits, cbm_mask)",
                                  info.min_cbm_bits, info.cbm_bits),
                      "choose ways in that range");
    }
  for (int p : mem_bw_percent)
    if (p < info.bw_min || p > 100) {
      throw UserError(fmt::format("--mem-bw-percent {} is out of range", p),
                      fmt::format("{} to 100 (info/MB/min_bandwidth)", info.bw_min),
                      "choose a percentage in that range");
    }
}

ResctrlGroup::ResctrlGroup(const ResctrlInfo& info, int l3_ways, int mb_percent)
    : dir_(info.root / fmt::format("moesweep-{}", ::getpid())) {
  std::error_code ec;
  fs::create_directory(dir_, ec);
  if (ec) {
    throw std::runtime_error(
        fmt::format("cannot create resctrl group {}: {}", dir_.string(), ec.message()));
  }
  try {
    std::string lines;  // one write: resctrl takes several resources at once
    if (l3_ways > 0) lines += l3_schemata_line(info, l3_ways);
    if (mb_percent > 0) {
      if (!lines.empty()) lines += '\n';
      lines += mb_schemata_line(info, mb_percent);
    }
    if (!lines.empty()) write_file(dir_ / "schemata", lines);
    adopt_threads();
  } catch (...) {
    fs::remove(dir_, ec);
    throw;
  }
}

ResctrlGroup::~ResctrlGroup() {
  std::error_code ec;
  // On resctrl, rmdir moves the group's tasks back to the default group; a
  // recorded tree (tests) is a plain directory with files in it.
  if (!fs::remove(dir_, ec) && !is_real_resctrl(dir_.parent_path())) fs::remove_all(dir_, ec);
}

void ResctrlGroup::adopt_threads(int pid) const {
  const fs::path tasks =
      pid > 0 ? fs::path("/proc") / std::to_string(pid) / "task" : "/proc/self/task";
  for (const auto& task : fs::directory_iterator(tasks)) {
    std::ofstream out(dir_ / "tasks", std::ios::app);  // one thread id per write
    out << task.path().filename().string() << "\n";
    out.flush();
    if (!out)
      throw std::runtime_error("resctrl refused a thread of this process in " + dir_.string());
  }
}

int remove_stale_resctrl_groups(const fs::path& root) {
  int removed = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("moesweep-", 0) != 0) continue;
    const int pid = std::atoi(name.c_str() + 9);
    if (pid <= 0 || (::kill(pid, 0) != 0 && errno == ESRCH)) {
      if (!fs::remove(entry.path(), ec) && !is_real_resctrl(root)) fs::remove_all(entry.path(), ec);
      removed += !fs::exists(entry.path());
    }
  }
  return removed;
}

}  // namespace moesweep
