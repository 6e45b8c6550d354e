#pragma once
// The engine's own expert kernel (ggml_mul_mat_id on the CPU backend, a ggml
// threadpool) over a pool of experts that grows from inside the cache to far
// past it: each token picks `used` random experts in each of `layers` layers,
// like a router. The kernel-level side of the L3 question, shared by
// kernels-bench (Google Benchmark) and `moesweep hw --cache` (through the
// worker's "expert_gemv" request, so it runs on the engine build being
// measured, prebuilt or not).
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>

#include "engine/engine_types.hpp"

namespace moesweep::worker {

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

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// Times `experts` experts at `threads` threads for about `seconds` (warmed
// first); the best of 3 passes.
ExpertGemvPoint measure_expert_gemv(const ExpertGemvShape& shape, int64_t experts, int threads,
                                    double seconds);

// The "expert_gemv" request: shape, experts, threads, seconds -> the point.
nlohmann::json expert_gemv_reply(const nlohmann::json& request);

}  // namespace moesweep::worker
