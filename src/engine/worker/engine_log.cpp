#include "engine/worker/engine_log.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "llama.h"

namespace moesweep::worker {
namespace {

std::atomic<int> g_level{1};  // what still prints: 0 error, 1 + warn, 2 + info, 3 + debug
std::mutex g_capture_mutex;
std::string* g_capture = nullptr;  // set while an EngineLogCapture is alive
bool g_capture_warnings = false;   // kWarnings: errors and warnings are kept
bool g_capture_info = false;       // kInfo: INFO lines are kept

// True when the text went to the capture instead of the terminal.
bool captured(int level, const char* text) {
  std::lock_guard<std::mutex> lock(g_capture_mutex);
  if (!g_capture) return false;
  if (level <= 1 && g_capture_warnings) {
    *g_capture += text;
    return level == 1;  // errors are captured and still printed
  }
  if (level == 2 && g_capture_info) *g_capture += text;  // printed as the filter says
  return false;
}

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
  if (captured(l, text)) return;
  if (l <= g_level.load()) std::fputs(text, stderr);
}

}  // namespace

EngineLogCapture::EngineLogCapture(Level level) {
  std::lock_guard<std::mutex> lock(g_capture_mutex);
  // A nested capture shares the outer one's buffer, which then keeps its level too.
  (level == Level::kInfo ? g_capture_info : g_capture_warnings) = true;
  if (g_capture) return;
  g_capture = new std::string();
  owner_ = true;
}

EngineLogCapture::~EngineLogCapture() {
  if (!owner_) return;
  std::lock_guard<std::mutex> lock(g_capture_mutex);
  delete g_capture;
  g_capture = nullptr;
  g_capture_warnings = g_capture_info = false;
}

std::string EngineLogCapture::text() const {
  std::lock_guard<std::mutex> lock(g_capture_mutex);
  return g_capture ? *g_capture : std::string();
}

void install_engine_log() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (const char* env = std::getenv("MOESWEEP_ENGINE_LOG")) {
      if (!std::strcmp(env, "info")) g_level = 2;
      if (!std::strcmp(env, "debug")) g_level = 3;
      if (!std::strcmp(env, "error")) g_level = 0;
    }
    llama_log_set(log_filter, nullptr);
  });
}

}  // namespace moesweep::worker
