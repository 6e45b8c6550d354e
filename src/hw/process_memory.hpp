#pragma once
// Memory readings of one process, by PID, from /proc: its peak and current
// resident set (VmHWM, VmRSS), smaps_rollup's Rss (an independent second
// reading), the bytes of one file it has mapped and how many of them are
// resident, and the machine's MemAvailable. Functions of a PID so the same
// readings serve the engine in this process or in a worker process. The proc
// root is a parameter: tests read recorded files. Every reading is bounded
// (line count and length) and says why when a file is absent or unreadable.
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace moesweep {

inline const std::filesystem::path kProcRoot = "/proc";

// A figure in bytes, or why there is none.
struct MemoryReading {
  std::optional<uint64_t> bytes;
  std::string unavailable;  // set when `bytes` is absent
};

struct ProcessStatus {
  MemoryReading peak_rss;  // VmHWM: the most resident memory since start or the last reset
  MemoryReading rss;       // VmRSS now
};

// /proc/PID/status's VmHWM and VmRSS.
ProcessStatus read_process_status(pid_t pid, const std::filesystem::path& proc = kProcRoot);
// /proc/PID/smaps_rollup's Rss: the kernel's sum over every mapping.
MemoryReading read_smaps_rollup_rss(pid_t pid, const std::filesystem::path& proc = kProcRoot);

// The mappings of one file in a process (the model's GGUF): their size and
// the part resident in RAM, from /proc/PID/smaps (Size, Rss of each mapping
// whose path is the file).
struct FileMapping {
  uint64_t mapped_bytes = 0;
  uint64_t resident_bytes = 0;
  int mappings = 0;  // 0: the process does not map the file (read into buffers)
};
// nullopt (with `why`) when smaps is unreadable.
std::optional<FileMapping> read_file_mapping(pid_t pid, const std::filesystem::path& file,
                                             std::string* why,
                                             const std::filesystem::path& proc = kProcRoot);

// MemAvailable of a /proc/meminfo-format file.
MemoryReading read_mem_available(const std::filesystem::path& meminfo = kProcRoot / "meminfo");

// Resets VmHWM to the current RSS (writes 5 to /proc/PID/clear_refs, Linux
// 4.0+), so the next peak is one context's own. False (with `why`) when the
// kernel or permissions refuse it; the peak then spans the whole process.
bool reset_peak_rss(pid_t pid, std::string* why, const std::filesystem::path& proc = kProcRoot);

}  // namespace moesweep
