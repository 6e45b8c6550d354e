#pragma once
// Which L3 domain (a CCD on AMD Zen) reads which bytes of an expert. ggml's
// CPU backend splits each expert's matrix by rows over the threads
// (ggml-cpu.c, ggml_compute_forward_mul_mat_id, and repack.cpp's
// forward_mul_mat_id for the repacked types), so a domain caches only the
// rows its threads read. Two schedules, read from the vendored source:
//  - chunked (ggml-cpu.c, types not repacked: Q8_0, Q6_K, Q5_K, ... on x86):
//    decode rows in chunks of 64; with fewer than 4 chunks per thread the
//    rows are cut into one slice per thread (thread i, slice i, every step);
//    otherwise thread i takes chunk i and the rest go to whichever thread asks
//    the atomic counter first: an unpredictable domain each step;
//  - static rows (repack.cpp: Q4_0, Q4_K, IQ4_NL, MXFP4 with AVX2, Q2_K with
//    AVX-512): thread i always reads rows [i n / nth, (i+1) n / nth), cut at
//    multiples of 8.
// Threads run on the CPUs of Topology::spread_cpus in order (the pin order).
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/cache_sim.hpp"

namespace moesweep {

struct Topology;

enum class RowSchedule { kChunked, kStaticRows };

// The schedule ggml's CPU backend uses for an expert matrix of `type` (ggml's
// type name, e.g. "q4_K") with `rows` rows on a CPU with these features.
RowSchedule row_schedule_for(const std::string& type, int64_t rows, bool avx2, bool avx512);

// One matrix of one expert: gate, up (or fused gate_up) and down.
struct ExpertMatrix {
  int64_t rows = 0;  // output rows (ne01): the dimension ggml splits
  double share = 0;  // of the expert's bytes
  RowSchedule schedule = RowSchedule::kChunked;
};

// The matrices of a deepseek2/qwen3moe/llama4 expert: gate and up of
// `expert_ff` rows (or one fused gate_up of 2 x expert_ff) and down of
// `hidden` rows, shares by row count (the three have equal input widths x
// rows products: hidden x ff each).
std::vector<ExpertMatrix> expert_matrices(int64_t hidden, int64_t expert_ff, bool fused_gate_up,
                                          RowSchedule schedule);

// How a matrix's rows go to threads in one decode step.
struct RowSplit {
  std::vector<int64_t> static_rows;  // per thread: rows it reads every step
  int64_t dynamic_rows = 0;          // rows handed out by the atomic counter
  int64_t chunk_rows = 0;            // rows per dynamic chunk
};
RowSplit split_rows(int64_t rows, int threads, RowSchedule schedule);

// Share of an expert's bytes that land on an unpredictable domain each step.
double dynamic_share(const std::vector<ExpertMatrix>& matrices, int threads);

// The L3 domains threads run in: domain of each thread and each domain's size.
struct DomainLayout {
  std::vector<int> thread_domain;      // per thread
  std::vector<uint64_t> domain_bytes;  // per domain (domains without threads: unused)
  int threads() const { return static_cast<int>(thread_domain.size()); }
};
// Threads 0..n-1 on spread_cpus[0..n-1]; `domain_bytes_override` > 0 replaces
// every domain's size (the measured effective L3 of one domain).
DomainLayout domain_layout(const Topology& topo, int threads, uint64_t domain_bytes_override = 0);
// A machine of `cores` cores cut evenly into `domains` L3 domains (a data
// sheet's facts: hardware profiles), spread order round-robin as hwloc's.
Topology evenly_split_topology(int cores, int domains, uint64_t bytes_per_domain);
// One shared cache of `bytes` for every thread (the model before domains).
DomainLayout shared_layout(int threads, uint64_t bytes);

// The per-domain read streams of a decode: each generation read of an expert
// becomes its matrices' static slices (to their threads' domains) and dynamic
// chunks (to a random thread's domain, seeded); hot-set reads are split over
// the domains by their thread counts. Prefill reads are left out (the chunk
// rules above are decode's).
std::vector<std::vector<BlockAccess>> domain_streams(const std::vector<BlockAccess>& stream,
                                                     const std::vector<ExpertMatrix>& matrices,
                                                     const DomainLayout& layout, uint64_t seed = 1);

}  // namespace moesweep
