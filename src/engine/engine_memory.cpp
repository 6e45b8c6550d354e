#include "engine/engine_memory.hpp"

#include <cmath>
#include <sstream>

namespace moesweep {
namespace {

// "<func>: <backend> <what> buffer size = <MiB> MiB" -> backend and MiB.
bool buffer_line(const std::string& line, const std::string& what, std::string* backend,
                 double* mib) {
  const std::string marker = " " + what + " buffer size = ";
  const size_t at = line.find(marker);
  if (at == std::string::npos) return false;
  const size_t colon = line.find(':');
  if (colon == std::string::npos || colon > at) return false;
  std::istringstream name(line.substr(colon + 1, at - colon - 1));
  std::istringstream value(line.substr(at + marker.size()));
  std::string unit;
  if (!(name >> *backend) || !(value >> *mib >> unit) || unit != "MiB") return false;
  return std::isfinite(*mib) && *mib >= 0 && *mib < 1e12;  // a line no engine writes: ignored
}

uint64_t bytes_of(double mib) {
  return static_cast<uint64_t>(std::llround(mib * 1024 * 1024));
}

}  // namespace

EngineMemoryFigures engine_memory_figures(const std::string& log_text) {
  EngineMemoryFigures f;
  std::istringstream in(log_text);
  for (std::string line; std::getline(in, line);) {
    std::string backend;
    double mib = 0;
    if (buffer_line(line, "model", &backend, &mib)) {
      // A mapped buffer names its backend with "_Mapped" (CPU_Mapped).
      (backend.find("_Mapped") != std::string::npos ? f.model_mapped_bytes : f.model_other_bytes) +=
          bytes_of(mib);
    } else if (buffer_line(line, "KV", &backend, &mib)) {
      f.kv_bytes += bytes_of(mib);
    } else if (buffer_line(line, "compute", &backend, &mib)) {
      f.compute_bytes += bytes_of(mib);
    } else if (buffer_line(line, "output", &backend, &mib)) {
      f.output_bytes += bytes_of(mib);
    } else {
      continue;
    }
    ++f.lines;
  }
  return f;
}

}  // namespace moesweep
