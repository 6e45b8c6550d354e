#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "model/quant_fallback.hpp"
#include "model/twin_spec.hpp"
#include "util/error.hpp"

namespace moesweep {

// A build stopped by SIGINT/SIGTERM (util/stop_signal.hpp): its temporary
// files are removed, nothing is cached; exit 130.
class TwinBuildInterrupted : public UserError {
 public:
  TwinBuildInterrupted();
};

struct TwinResult {
  std::filesystem::path path;
  bool reused = false;  // taken from the cache
  uint64_t file_bytes = 0;
  double build_seconds = 0;
  int64_t peak_rss_bytes = 0;  // VmHWM of this process after the build
  ParamCount params;
  // Tensors quantized to another type than asked (shape not a multiple of the
  // block), read from the engine's warnings kept in `engine_log`.
  std::vector<QuantFallback> quant_fallbacks;
  std::filesystem::path engine_log;  // the quantization's warnings; "" if none kept
};

using TwinProgress = std::function<void(const std::string& stage)>;

// Returns the cached twin for `spec` (user cache dir / twins), building it
// first when missing. Concurrent callers (parallel tests) build it once.
// `out`: also copy/keep the result at this path. `force`: rebuild.
// UserError before anything is written when the disk lacks the room
// (model/twin_space.hpp); TwinBuildInterrupted on a stop.
TwinResult ensure_twin(const TwinSpec& spec, const std::filesystem::path& out = {},
                       bool force = false, const TwinProgress& progress = {});

// Builds `spec` into `path` without the cache (atomic: tmp file + rename).
// The engine's warnings while quantizing go to quantize_log_path(path), not
// to the terminal. A stop (SIGINT/SIGTERM under a StopOnSignal) is honoured
// between 16 MiB slabs of the skeleton and around the quantization: the
// .tmp files are removed and TwinBuildInterrupted thrown.
void build_twin_file(const TwinSpec& spec, const std::filesystem::path& path,
                     const TwinProgress& progress = {});

std::filesystem::path twin_cache_dir();
std::filesystem::path quantize_log_path(const std::filesystem::path& twin);  // NAME.quantize.log

}  // namespace moesweep
