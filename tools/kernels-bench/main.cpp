// kernels-bench: the hardware limits behind MoE decode, as Google Benchmark
// results (--benchmark_format=json gives JSON the results store can import).
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdlib>
#include <string>

#include "hw/build_info.hpp"
#include "hw/topology.hpp"
#include "kernels_bench.hpp"

int main(int argc, char** argv) {
  using namespace moesweep;
  // Our one flag (--threads=N: ggml threads for the expert GEMV), taken out
  // before Google Benchmark sees the command line.
  int gemv_threads = 0;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--threads=", 0) == 0)
      gemv_threads = std::atoi(arg.c_str() + 10);
    else
      argv[kept++] = argv[i];
  }
  argc = kept;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  const Topology topo = probe_topology();
  const CpuInfo cpu = cpu_info();
  benchmark::AddCustomContext("moesweep_cpu_model", cpu.model_name);
  benchmark::AddCustomContext("moesweep_physical_cores", fmt::format("{}", topo.cores));
  benchmark::AddCustomContext("moesweep_l3_domains", fmt::format("{}", topo.l3_domains.size()));
  benchmark::AddCustomContext("moesweep_l3_total_bytes", fmt::format("{}", topo.l3_total_bytes()));
  benchmark::AddCustomContext("moesweep_hypervisor", cpu.hypervisor ? "true" : "false");
  benchmark::AddCustomContext("moesweep_version", build_info().moesweep_version);
  bench::register_memory_bandwidth(topo);
  bench::register_expert_working_set(topo, gemv_threads);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
