// The memory readings of a process by PID (hw/process_memory.hpp) on a
// recorded /proc tree and on this test process itself, and the engine's
// buffer sizes read from its log lines (engine/engine_memory.hpp).
#include <fcntl.h>
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>
#include <algorithm>
#include <thread>

#include <cstdlib>
#include <cstring>
#include <fstream>

#include "engine/engine_memory.hpp"
#include "hw/process_memory.hpp"
#include "support/sanitizers.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

using test::kProc;
constexpr uint64_t kKiB = 1024, kMiB = 1024 * 1024;

TEST(ProcessMemory, RecordedStatusRollupAndTheMappedFile) {
  const ProcessStatus s = read_process_status(22017, kProc);
  ASSERT_TRUE(s.peak_rss.bytes) << s.peak_rss.unavailable;
  EXPECT_EQ(*s.peak_rss.bytes, 17720 * kKiB);
  EXPECT_EQ(*s.rss.bytes, 17720 * kKiB);
  EXPECT_EQ(*read_smaps_rollup_rss(22017, kProc).bytes, 17800 * kKiB);
  std::string why;
  const auto m = read_file_mapping(22017, "/tmp/rec/model.gguf", &why, kProc);
  ASSERT_TRUE(m) << why;
  EXPECT_EQ(m->mappings, 1);
  EXPECT_EQ(m->mapped_bytes, 8 * kMiB);
  EXPECT_EQ(m->resident_bytes, 4 * kMiB);
  EXPECT_EQ(read_file_mapping(22017, "/tmp/rec/other.gguf", &why, kProc)->mappings, 0);
  EXPECT_TRUE(read_mem_available(kProc / "meminfo").bytes);
}

TEST(ProcessMemory, AMissingProcessIsUnavailableWithTheFileNamed) {
  const ProcessStatus s = read_process_status(999999, kProc);
  EXPECT_FALSE(s.peak_rss.bytes);
  EXPECT_NE(s.peak_rss.unavailable.find("999999/status"), std::string::npos)
      << s.peak_rss.unavailable;
  std::string why;
  EXPECT_FALSE(read_file_mapping(999999, "/x", &why, kProc));
  EXPECT_NE(why.find("smaps"), std::string::npos);
  const auto dir = test::scratch_dir();
  std::ofstream(dir / "meminfo") << "MemTotal: 100 kB\n";
  EXPECT_NE(read_mem_available(dir / "meminfo").unavailable.find("no MemAvailable"),
            std::string::npos);
}

// This process maps a file and reads its first half: smaps sees 8 MiB
// mapped, 4 MiB (and at most one fault-around window more) resident.
TEST(ProcessMemory, ThisProcessMappingAFileAndReadingHalfOfIt) {
  const auto file = test::scratch_dir() / "mapped.bin";
  std::ofstream(file, std::ios::binary) << std::string(8 * kMiB, 'x');
  const int fd = ::open(file.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  auto* p =
      static_cast<const volatile char*>(mmap(nullptr, 8 * kMiB, PROT_READ, MAP_SHARED, fd, 0));
  ASSERT_NE(p, MAP_FAILED);
  int sum = 0;
  for (uint64_t off = 0; off < 4 * kMiB; off += 4096) sum += p[off];
  EXPECT_GT(sum, 0);
  std::string why;
  const auto m = read_file_mapping(getpid(), file, &why);
  ASSERT_TRUE(m) << why;
  EXPECT_EQ(m->mappings, 1);
  EXPECT_EQ(m->mapped_bytes, 8 * kMiB);
  EXPECT_GE(m->resident_bytes, 4 * kMiB);
  EXPECT_LE(m->resident_bytes, 4 * kMiB + 64 * kKiB);
  munmap(const_cast<char*>(p), 8 * kMiB);
  ::close(fd);
}

// The independent second reading: smaps_rollup's Rss against status's VmRSS
// (the kernel keeps VmRSS in per-CPU counters that lag by up to 64 pages per
// CPU, hence the slack).
TEST(ProcessMemory, RollupAgreesWithVmRssAndThePeakIsNoLower) {
  const ProcessStatus s = read_process_status(getpid());
  const MemoryReading rollup = read_smaps_rollup_rss(getpid());
  ASSERT_TRUE(s.rss.bytes && s.peak_rss.bytes && rollup.bytes);
  // VmHWM is updated from the same lagging counters: the same slack.
  const uint64_t lag = 64 * 4096 * uint64_t{std::max(1u, std::thread::hardware_concurrency())};
  EXPECT_GE(*s.peak_rss.bytes + lag, *s.rss.bytes);
  const double diff = std::abs(static_cast<double>(*rollup.bytes) - *s.rss.bytes);
  EXPECT_LE(diff, 2.0 * kMiB + 0.02 * *s.rss.bytes) << *rollup.bytes << " vs " << *s.rss.bytes;
}

TEST(ProcessMemory, PeakResetsToTheCurrentRss) {
  if (test::kUnderAddressSanitizer)
    GTEST_SKIP() << "AddressSanitizer keeps freed memory in its quarantine: RSS does not drop";
  {
    std::vector<char> big(96 * kMiB);
    std::memset(big.data(), 1, big.size());  // touched: resident
    EXPECT_EQ(big[12345], 1);
  }  // freed (a large allocation is unmapped)
  const uint64_t peak = *read_process_status(getpid()).peak_rss.bytes;
  std::string why;
  if (!reset_peak_rss(getpid(), &why)) GTEST_SKIP() << why;  // an older kernel or a sandbox
  const ProcessStatus after = read_process_status(getpid());
  EXPECT_LT(*after.peak_rss.bytes, peak - 64 * kMiB);
  EXPECT_GE(*after.peak_rss.bytes, *after.rss.bytes - kMiB);
}

// The engine's lines as llama.cpp v0.4.0 logs them for the tiny kimi twin
// (MOESWEEP_ENGINE_LOG=info), with another run's repacked buffer added.
TEST(EngineMemory, BufferSizesFromTheEnginesLogLines) {
  const std::string log =
      "load_tensors: loading model tensors, this can take a while... (mmap = true)\n"
      "load_tensors:   CPU_Mapped model buffer size =   143.21 MiB\n"
      "load_tensors:   CPU_REPACK model buffer size =    12.50 MiB\n"
      "llama_context:        CPU  output buffer size =     0.49 MiB\n"
      "llama_kv_cache:        CPU KV buffer size =     4.50 MiB\n"
      "llama_kv_cache: size =    4.50 MiB (   512 cells,   4 layers,  1/1 seqs), K (q8_0):  "
      "4.50 MiB, V (f16):    0.00 MiB\n"
      "llama_context:        CPU compute buffer size =    30.01 MiB\n"
      "graph_reserve: buffer size = 12.00 GiB\n";  // not a buffer line of ours
  const EngineMemoryFigures f = engine_memory_figures(log);
  EXPECT_EQ(f.lines, 5);
  EXPECT_EQ(f.model_mapped_bytes, static_cast<uint64_t>(143.21 * kMiB + 0.5));
  EXPECT_EQ(f.model_other_bytes, static_cast<uint64_t>(12.50 * kMiB));
  EXPECT_EQ(f.kv_bytes, static_cast<uint64_t>(4.50 * kMiB));
  EXPECT_EQ(f.compute_bytes, static_cast<uint64_t>(30.01 * kMiB + 0.5));
  EXPECT_EQ(f.output_bytes, static_cast<uint64_t>(0.49 * kMiB + 0.5));
}

TEST(EngineMemory, NothingRecognisedIsZeroLinesNeverAGuess) {
  const EngineMemoryFigures f = engine_memory_figures(
      "random text\nCPU KV buffer size = lots MiB\nx: CPU KV buffer size = -3 MiB\n"
      "x: CPU KV buffer size = 1e300 MiB\n");
  EXPECT_EQ(f.lines, 0);
  EXPECT_EQ(f.kv_bytes, 0u);
}

}  // namespace
}  // namespace moesweep
