#include "engine/engine_log.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "llama.h"

namespace moesweep {
namespace {

std::atomic<int> g_level{static_cast<int>(EngineLogLevel::kWarn)};

int level_of(ggml_log_level l) {
  switch (l) {
    case GGML_LOG_LEVEL_ERROR:
      return 0;
    case GGML_LOG_LEVEL_WARN:
      return 1;
    case GGML_LOG_LEVEL_INFO:
      return 2;
    case GGML_LOG_LEVEL_DEBUG:
      return 3;
    default:
      return 2;  // NONE/CONT: continuation of the previous line's level
  }
}

void log_filter(ggml_log_level level, const char* text, void*) {
  static thread_local int last = 2;
  int l = (level == GGML_LOG_LEVEL_CONT) ? last : level_of(level);
  last = l;
  // Twins carry no vocabulary on purpose; the engine warns that it pads one.
  if (l == 1 && g_level.load() < 2 && std::strstr(text, "dummy tokens")) return;
  if (l <= g_level.load()) std::fputs(text, stderr);
}

}  // namespace

void set_engine_log_level(EngineLogLevel level) {
  g_level = static_cast<int>(level);
}

void ensure_engine_initialized() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (const char* env = std::getenv("MOESWEEP_ENGINE_LOG")) {
      if (!std::strcmp(env, "info")) g_level = 2;
      if (!std::strcmp(env, "debug")) g_level = 3;
      if (!std::strcmp(env, "error")) g_level = 0;
    }
    llama_log_set(log_filter, nullptr);
    llama_backend_init();
  });
}

}  // namespace moesweep
