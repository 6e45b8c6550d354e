#include "model/twin_quantize.hpp"

#include <fstream>

#include "engine/engine.hpp"
#include "engine/worker_launcher.hpp"

namespace moesweep {

// In an engine worker: the engine's warnings (per-tensor fallbacks) come back
// as text, and an engine that aborts on a shape fails this twin, not moesweep.
void quantize_twin(const std::filesystem::path& skeleton, const std::filesystem::path& out,
                   int ftype, const std::filesystem::path& log) {
  const ScopedWorkerLauncher direct({});  // never under --counters sim's valgrind
  try {
    std::ofstream(log) << quantize_in_worker(skeleton.string(), out.string(), ftype, 0);
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(out, ec);
    throw;
  }
}

}  // namespace moesweep
