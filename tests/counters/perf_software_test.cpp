// Real perf_event software counters on this machine: worker threads doing
// work inside a phase are counted (task-clock consistent with wall x busy
// threads), sleeping inside a phase shows up as context switches, touching new
// memory as page faults. Bounds are loose on purpose: no timing flakiness.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <thread>
#include <vector>

#include "counters/perf_backend.hpp"

namespace moesweep::counters {
namespace {

using Clock = std::chrono::steady_clock;

// Spins for `ms` of wall time doing arithmetic the compiler cannot drop.
void busy_for(std::chrono::milliseconds ms) {
  volatile double sink = 0;
  const auto end = Clock::now() + ms;
  while (Clock::now() < end)
    for (int i = 0; i < 10000; ++i) sink = sink + i * 0.5;
}

// A pool created before the counters attach, like ggml's threadpool: the
// workers wait for a phase, work, and report back.
class WorkerPool {
 public:
  explicit WorkerPool(int n) {
    for (int i = 0; i < n; ++i)
      threads_.emplace_back([this] {
        int seen = 0;
        while (!quit_) {
          if (phase_.load() != seen) {
            seen = phase_.load();
            busy_for(std::chrono::milliseconds(150));
            done_.fetch_add(1);
          } else {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
          }
        }
      });
  }
  ~WorkerPool() {
    quit_ = true;
    for (auto& t : threads_) t.join();
  }
  void run_phase() {
    const int before = done_.load();
    phase_.fetch_add(1);
    while (done_.load() < before + static_cast<int>(threads_.size()))
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }

 private:
  std::vector<std::thread> threads_;
  std::atomic<int> phase_{0}, done_{0};
  std::atomic<bool> quit_{false};
};

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// The checks compare task-clock with the CPU time the kernel accounts to the
// process over the same interval, not with wall time: on a loaded machine a
// busy thread gets only part of a CPU.
TEST(PerfSoftwareEvents, DecodeLikeWorkOnPoolThreadsIsCountedPerPhase) {
  constexpr int kWorkers = 2;
  WorkerPool pool(kWorkers);
  PerfBackend backend(CounterOptions{});
  backend.threads_changed(0);  // after the pool exists, as the runner does after warm-up
  auto tg = backend.session("tg", "test/tg");
  double wall = 0, cpu = 0;
  for (int rep = 0; rep < 2; ++rep) {
    const auto t0 = Clock::now();
    const double cpu0 = process_cpu_seconds();
    tg->start();
    pool.run_phase();
    tg->stop(seconds_since(t0), 8);
    cpu += process_cpu_seconds() - cpu0;
    wall += seconds_since(t0);
  }
  const auto r = tg->result();
  ASSERT_TRUE(r["task_clock_s"].is_number()) << r.dump(2);
  const double task_clock_total = r["task_clock_s"].get<double>() * 2;
  // The pool threads' CPU time is in it (without them it would be near 0).
  EXPECT_GT(task_clock_total, 0.7 * cpu);
  EXPECT_LT(task_clock_total, 1.3 * cpu + 0.01);
  EXPECT_NEAR(r["cpu_utilization"].get<double>(), task_clock_total / wall,
              0.2 * task_clock_total / wall);
  // The pool waits with sleep_for between phases and the main thread too.
  EXPECT_GT(r["context_switches"].get<double>(), 0);
  EXPECT_TRUE(r["cpu_migrations"].is_number());
}

TEST(PerfSoftwareEvents, ThreadsCreatedInsideThePhaseAreInherited) {
  PerfBackend backend(CounterOptions{});
  auto pp = backend.session("pp", "test/pp");
  const auto t0 = Clock::now();
  const double cpu0 = process_cpu_seconds();
  pp->start();
  // ggml without a threadpool creates its workers per graph, during the phase.
  std::vector<std::thread> workers;
  for (int i = 0; i < 2; ++i)
    workers.emplace_back([] { busy_for(std::chrono::milliseconds(150)); });
  for (auto& w : workers) w.join();
  pp->stop(seconds_since(t0), 16);
  const double cpu = process_cpu_seconds() - cpu0;
  const auto r = pp->result();
  ASSERT_TRUE(r["task_clock_s"].is_number()) << r.dump(2);
  // The workers did nearly all of the process's CPU work in the phase; the
  // main thread mostly waited in join(). Without inherit it would be near 0.
  EXPECT_GT(r["task_clock_s"].get<double>(), 0.7 * cpu);
  EXPECT_LT(r["task_clock_s"].get<double>(), 1.3 * cpu + 0.01);
}

// The kernel's own CPU time of the whole process is the independent witness
// that every thread (pool threads and ones created inside the phase) is counted.
TEST(PerfSoftwareEvents, TaskClockAgreesWithTheProcessCpuTime) {
  WorkerPool pool(2);
  PerfBackend backend(CounterOptions{});
  backend.threads_changed(0);
  auto s = backend.session("tg", "test/cputime");
  const double cpu0 = process_cpu_seconds();
  s->start();
  pool.run_phase();
  std::thread extra([] { busy_for(std::chrono::milliseconds(100)); });
  extra.join();
  s->stop(0.5, 1);
  const double cpu = process_cpu_seconds() - cpu0;
  const double counted = s->result()["task_clock_s"].get<double>();
  EXPECT_GT(counted, 0.8 * cpu - 0.01) << "process CPU " << cpu;
  EXPECT_LT(counted, 1.2 * cpu + 0.01) << "process CPU " << cpu;
}

TEST(PerfSoftwareEvents, SleepingInsideAPhaseCountsContextSwitches) {
  PerfBackend backend(CounterOptions{});
  auto s = backend.session("tg", "test/sleep");
  const auto t0 = Clock::now();
  s->start();
  for (int i = 0; i < 20; ++i) std::this_thread::sleep_for(std::chrono::microseconds(200));
  s->stop(seconds_since(t0), 1);
  const auto r = s->result();
  ASSERT_TRUE(r["context_switches"].is_number()) << r.dump(2);
  EXPECT_GE(r["context_switches"].get<double>(), 10);
}

TEST(PerfSoftwareEvents, TouchingFreshMemoryCountsPageFaults) {
  PerfBackend backend(CounterOptions{});
  auto s = backend.session("pp", "test/faults");
  constexpr std::size_t kBytes = 32u << 20;
  const auto t0 = Clock::now();
  s->start();
  std::vector<char> buffer(kBytes);  // value-initialised: every page written
  s->stop(seconds_since(t0), 1);
  EXPECT_EQ(buffer[kBytes / 2], 0);
  const auto r = s->result();
  ASSERT_TRUE(r["page_faults"].is_number()) << r.dump(2);
  // 8192 pages of 4 KiB; transparent huge pages may take far fewer faults.
  EXPECT_GT(r["page_faults"].get<double>(), 0);
}

// The direct cost counting adds to every repetition (two snapshots of every
// fd), reported for the overhead figure; asserted only to be a real number.
TEST(PerfSoftwareEvents, StartStopCostIsReported) {
  WorkerPool pool(2);
  PerfBackend backend(CounterOptions{});
  backend.threads_changed(0);
  auto s = backend.session("tg", "test/cost");
  constexpr int kPairs = 2000;
  const auto t0 = Clock::now();
  for (int i = 0; i < kPairs; ++i) {
    s->start();
    s->stop(1e-3, 1);
  }
  const double us_per_pair = seconds_since(t0) / kPairs * 1e6;
  RecordProperty("us_per_start_stop", std::to_string(us_per_pair));
  std::printf("counters: %.1f us per start()+stop() with %d threads attached\n", us_per_pair,
              static_cast<int>(process_thread_ids().size()));
  EXPECT_GT(us_per_pair, 0);
}

// Spins until this thread has used `cpu` of CPU time (not wall time: on a
// loaded machine the wall time grows, the work done does not).
void busy_cpu_for(std::chrono::milliseconds cpu) {
  const auto thread_cpu = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
  };
  volatile double sink = 0;
  const auto end = thread_cpu() + cpu;
  while (thread_cpu() < end)
    for (int i = 0; i < 10000; ++i) sink = sink + i * 0.5;
}

TEST(PerfSoftwareEvents, PhasesAccumulateSeparately) {
  PerfBackend backend(CounterOptions{});
  auto pp = backend.session("pp", "p/pp");
  auto tg = backend.session("tg", "p/tg");
  auto t0 = Clock::now();
  pp->start();
  busy_cpu_for(std::chrono::milliseconds(100));
  pp->stop(seconds_since(t0), 32);
  t0 = Clock::now();
  tg->start();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  tg->stop(seconds_since(t0), 4);
  // Each phase counts its own CPU time: the busy one at least the 100 ms it
  // spun (whatever the machine's load, which stretches only its wall time),
  // the sleeping one far less.
  const double busy = pp->result()["task_clock_s"].get<double>();
  const double asleep = tg->result()["task_clock_s"].get<double>();
  EXPECT_GE(busy, 0.1 * 0.99) << pp->result().dump();
  EXPECT_LT(asleep, busy / 2) << tg->result().dump();
  EXPECT_GT(pp->result()["cpu_utilization"].get<double>(), 0);
}

}  // namespace
}  // namespace moesweep::counters
