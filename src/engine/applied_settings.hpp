#pragma once
// What the engine applied of each setting it was given, beside what the plan
// asked for. The worker echoes the sizes and thread counts the engine holds
// (its context and threads replies); the KV cache types, flash attention as
// resolved from auto and ik_llama.cpp's switches come from the engine's own
// INFO lines of creating the context (both engine kinds print them). A record
// keeps the applied values in extra.applied; a difference that changes what a
// point measures (threads, cache types, flash attention, the micro-batch, a
// switch) fails that point with the reason, and a harmless one (n_ctx rounded
// up to the engine's padding) is kept and shown. A value the engine did not
// report is null in the record, never the planned one.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "engine/engine_types.hpp"

namespace moesweep {

// 0, "" or -1: the engine did not report it.
struct AppliedContext {
  int n_ctx = 0, n_batch = 0, n_ubatch = 0;
  std::string type_k, type_v;
  int flash_attn = -1;                                // 0 off, 1 on (auto resolved)
  int fused_moe = -1, mla = -1, attn_max_batch = -1;  // ik_llama.cpp's switches
};

struct AppliedThreads {
  int n_threads = 0, n_threads_batch = 0;
};

// The KV cache types, flash attention and ik_llama.cpp's switches from the
// engine's INFO log of creating a context; what it does not name is left as is.
void read_applied_from_log(const std::string& log, AppliedContext& applied);

struct AppliedCheck {
  nlohmann::json applied =
      nlohmann::json::object();       // setting -> applied value (null: not reported)
  std::vector<std::string> failures;  // differences that change what the point measures
  std::vector<std::string> notes;     // harmless differences, kept and shown
};

// Every setting of the table (applied_settings.cpp), planned against applied.
AppliedCheck check_applied(const ContextParams& planned, const ThreadSettings& threads,
                           const AppliedContext& context, const AppliedThreads& applied_threads);

}  // namespace moesweep
