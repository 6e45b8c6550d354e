#pragma once
// The engine's own memory figures, read from the lines it logs at INFO when
// it loads a model and creates a context ("CPU_Mapped model buffer size =
// 143.21 MiB", "CPU KV buffer size = 4.50 MiB", "CPU compute buffer size =
// 30.01 MiB"). The engine's public API has no call for them (its memory
// breakdown is internal), so the log is the source. One pure function of the
// captured text: it moves with the engine into whichever process runs it.
#include <cstdint>
#include <string>

namespace moesweep {

struct EngineMemoryFigures {
  // Buffers are summed over the engine's backends (CPU, CPU_REPACK, ...).
  uint64_t model_mapped_bytes = 0;  // model buffers backed by the file's mapping (CPU_Mapped)
  uint64_t model_other_bytes = 0;   // model buffers the engine allocated (CPU, CPU_REPACK)
  uint64_t kv_bytes = 0;            // KV buffer(s)
  uint64_t compute_bytes = 0;       // compute buffer(s): the graph's scratch
  uint64_t output_bytes = 0;        // output (logits) buffer
  int lines = 0;                    // lines recognised; 0: the engine logged none of them
};

// The sum of every recognised line of `log_text`: pass the text of one model
// load or one context creation. The engine prints MiB with two decimals, so a
// figure is good to about 5 KiB per line.
EngineMemoryFigures engine_memory_figures(const std::string& log_text);

}  // namespace moesweep
