#include "analysis/l3_domains.hpp"

#include <algorithm>
#include <random>

#include "hw/topology.hpp"

namespace moesweep {
namespace {

constexpr int64_t kDecodeChunkRows = 64;  // ggml-cpu.c: chunk_size when nr1 == 1
constexpr int64_t kRepackColumns = 8;     // repack.cpp: NB_COLS of the x86 layouts

int64_t round_up(int64_t v, int64_t m) {
  return v % m ? v + m - v % m : v;
}

// The key of a slice of a block in a domain's stream: block, matrix, chunk
// (0 = the static slice).
uint64_t slice_key(uint64_t block, size_t matrix, int64_t chunk) {
  return (block << 20) | (static_cast<uint64_t>(matrix) << 16) |
         static_cast<uint64_t>(std::min<int64_t>(chunk, 0xffff));
}

}  // namespace

RowSchedule row_schedule_for(const std::string& type, int64_t rows, bool avx2, bool avx512) {
  // repack.cpp, ggml_repack_get_optimal_repack_type, x86 branches
  const bool repacked =
      rows % kRepackColumns == 0 &&
      (((type == "q4_0" || type == "q4_K" || type == "iq4_nl" || type == "mxfp4") && avx2) ||
       (type == "q2_K" && avx512));
  return repacked ? RowSchedule::kStaticRows : RowSchedule::kChunked;
}

std::vector<ExpertMatrix> expert_matrices(int64_t hidden, int64_t expert_ff, bool fused_gate_up,
                                          RowSchedule schedule) {
  if (fused_gate_up) return {{2 * expert_ff, 2.0 / 3, schedule}, {hidden, 1.0 / 3, schedule}};
  return {
      {expert_ff, 1.0 / 3, schedule}, {expert_ff, 1.0 / 3, schedule}, {hidden, 1.0 / 3, schedule}};
}

RowSplit split_rows(int64_t rows, int threads, RowSchedule schedule) {
  RowSplit s;
  const int nth = std::max(1, threads);
  s.static_rows.assign(static_cast<size_t>(nth), 0);
  if (schedule == RowSchedule::kStaticRows) {
    for (int i = 0; i < nth; ++i) {
      const int64_t lo = round_up(i * rows / nth, kRepackColumns);
      const int64_t hi = std::min(rows, round_up((i + 1) * rows / nth, kRepackColumns));
      s.static_rows[static_cast<size_t>(i)] = std::max<int64_t>(0, hi - lo);
    }
    return s;
  }
  const int64_t chunks = (rows + kDecodeChunkRows - 1) / kDecodeChunkRows;
  if (chunks < 4LL * nth || nth == 1) {  // one slice per thread
    const int64_t slice = (rows + nth - 1) / nth;
    for (int i = 0; i < nth; ++i)
      s.static_rows[static_cast<size_t>(i)] = std::clamp<int64_t>(rows - i * slice, 0, slice);
    return s;
  }
  for (int i = 0; i < nth; ++i)  // chunk i to thread i, the rest to the counter
    s.static_rows[static_cast<size_t>(i)] = kDecodeChunkRows;
  s.dynamic_rows = rows - kDecodeChunkRows * nth;
  s.chunk_rows = kDecodeChunkRows;
  return s;
}

double dynamic_share(const std::vector<ExpertMatrix>& matrices, int threads) {
  double share = 0;
  for (const ExpertMatrix& m : matrices)
    if (m.rows > 0)
      share += m.share * static_cast<double>(split_rows(m.rows, threads, m.schedule).dynamic_rows) /
               static_cast<double>(m.rows);
  return share;
}

DomainLayout domain_layout(const Topology& topo, int threads, uint64_t domain_bytes_override) {
  DomainLayout l;
  for (const L3Domain& d : topo.l3_domains)
    l.domain_bytes.push_back(domain_bytes_override > 0 ? domain_bytes_override : d.size_bytes);
  if (l.domain_bytes.empty()) l.domain_bytes.push_back(domain_bytes_override);
  for (int i = 0; i < threads; ++i) {
    const int cpu = topo.spread_cpus.empty()
                        ? i
                        : topo.spread_cpus[static_cast<size_t>(i) % topo.spread_cpus.size()];
    int domain = 0;
    for (size_t d = 0; d < topo.l3_domains.size(); ++d) {
      const auto& cpus = topo.l3_domains[d].cpus;
      if (std::find(cpus.begin(), cpus.end(), cpu) != cpus.end()) domain = static_cast<int>(d);
    }
    l.thread_domain.push_back(domain);
  }
  return l;
}

Topology evenly_split_topology(int cores, int domains, uint64_t bytes_per_domain) {
  Topology t;
  t.sockets = 1;
  t.cores = t.pus = std::max(1, cores);
  const int n = std::clamp(domains, 1, t.cores);
  const int per = (t.cores + n - 1) / n;
  for (int d = 0; d < n; ++d) {
    L3Domain dom{bytes_per_domain, {}};
    for (int c = d * per; c < std::min(t.cores, (d + 1) * per); ++c) dom.cpus.push_back(c);
    t.l3_domains.push_back(dom);
  }
  for (int round = 0; round < per; ++round)
    for (const L3Domain& d : t.l3_domains)
      if (round < static_cast<int>(d.cpus.size())) t.spread_cpus.push_back(d.cpus[round]);
  return t;
}

DomainLayout shared_layout(int threads, uint64_t bytes) {
  return {std::vector<int>(static_cast<size_t>(std::max(1, threads)), 0), {bytes}};
}

std::vector<std::vector<BlockAccess>> domain_streams(const std::vector<BlockAccess>& stream,
                                                     const std::vector<ExpertMatrix>& matrices,
                                                     const DomainLayout& layout, uint64_t seed) {
  const size_t domains = layout.domain_bytes.size();
  const int nth = std::max(1, layout.threads());
  std::vector<std::vector<BlockAccess>> out(domains);
  std::vector<RowSplit> splits;
  for (const ExpertMatrix& m : matrices) splits.push_back(split_rows(m.rows, nth, m.schedule));
  std::vector<int> threads_in(domains, 0);
  for (int d : layout.thread_domain) ++threads_in[static_cast<size_t>(d)];
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> static_bytes(domains);
  for (const BlockAccess& a : stream) {
    if (a.phase != TracePhase::kGeneration) continue;
    if (a.hot) {
      for (size_t d = 0; d < domains; ++d)
        if (threads_in[d] > 0)
          out[d].push_back(
              {a.block, a.bytes * static_cast<uint64_t>(threads_in[d]) / static_cast<uint64_t>(nth),
               a.phase, a.layer, true});
      continue;
    }
    for (size_t j = 0; j < matrices.size(); ++j) {
      const double per_row = static_cast<double>(a.bytes) * matrices[j].share /
                             static_cast<double>(std::max<int64_t>(1, matrices[j].rows));
      std::fill(static_bytes.begin(), static_bytes.end(), 0);
      for (int t = 0; t < nth; ++t)
        static_bytes[static_cast<size_t>(layout.thread_domain[static_cast<size_t>(t)])] +=
            static_cast<uint64_t>(per_row * static_cast<double>(splits[j].static_rows[t]));
      for (size_t d = 0; d < domains; ++d)
        if (static_bytes[d] > 0)
          out[d].push_back({slice_key(a.block, j, 0), static_bytes[d], a.phase, a.layer, false});
      const RowSplit& s = splits[j];
      for (int64_t c = 0; s.chunk_rows > 0 && c * s.chunk_rows < s.dynamic_rows; ++c) {
        const int64_t rows = std::min(s.chunk_rows, s.dynamic_rows - c * s.chunk_rows);
        const size_t d = static_cast<size_t>(layout.thread_domain[rng() % nth]);
        out[d].push_back({slice_key(a.block, j, c + 1),
                          static_cast<uint64_t>(per_row * static_cast<double>(rows)), a.phase,
                          a.layer, false});
      }
    }
  }
  return out;
}

}  // namespace moesweep
