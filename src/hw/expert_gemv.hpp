#pragma once
// The engine's own expert kernel (ggml_mul_mat_id on the CPU backend, a ggml
// threadpool) over a pool of experts that grows from inside the cache to far
// past it: each token picks `used` random experts in each of `layers` layers,
// like a router. The kernel-level side of the L3 question, shared by
// kernels-bench (Google Benchmark) and `moesweep hw --cache` (stored with the
// machine's facts so the working-set experiment can check its shape against
// what the kernel reaches out of cache).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace moesweep {

struct ExpertGemvShape {
  std::string type = "q8_0";  // ggml type name; q8_0 takes ggml's chunked (not repacked) path
  int64_t hidden = 2048;      // GEMV input width
  int64_t rows = 512;         // rows of one expert matrix
  int used = 8;               // experts per token per layer
  int layers = 4;             // mul_mat_id nodes per graph, amortising graph launch
};

// A pool of `experts` experts of one shape, its graph and threadpool.
class ExpertGemv {
 public:
  ExpertGemv(const ExpertGemvShape& shape, int64_t experts, int threads);
  ~ExpertGemv();
  ExpertGemv(const ExpertGemv&) = delete;
  ExpertGemv& operator=(const ExpertGemv&) = delete;

  void route_next_token();  // new random experts for every layer
  void compute();           // one token through every layer
  uint64_t expert_bytes() const;
  uint64_t bytes_per_token() const;  // expert bytes one token reads
  uint64_t pool_bytes() const;       // the working set
  int64_t experts() const;
  int threads() const;
  const ExpertGemvShape& shape() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

struct ExpertGemvPoint {
  uint64_t pool_bytes = 0;
  int threads = 1;
  double gbps = 0;  // expert bytes read per second, best of the repeats
  double tokens_per_s = 0;
};

// Times `experts` experts at `threads` threads for about `seconds` (warmed
// first); the best of 3 passes.
ExpertGemvPoint measure_expert_gemv(const ExpertGemvShape& shape, int64_t experts, int threads,
                                    double seconds);

}  // namespace moesweep
