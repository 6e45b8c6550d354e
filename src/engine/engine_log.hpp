#pragma once
// The engine logs every tensor at INFO; our tables must not drown in it.
// Default: warnings and errors only, to stderr. MOESWEEP_ENGINE_LOG=info|debug
// (or set_engine_log_level) brings the rest back.
namespace moesweep {

enum class EngineLogLevel { kError = 0, kWarn = 1, kInfo = 2, kDebug = 3 };

void set_engine_log_level(EngineLogLevel level);
// Installs the filter once and initializes the engine backend (idempotent).
void ensure_engine_initialized();

}  // namespace moesweep
