#include "engine/worker/quantize.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "engine/worker/engine_log.hpp"
#include "engine/worker/llama_backend.hpp"
#include "engine/worker_protocol.hpp"
#include "llama.h"
#include "util/error.hpp"

namespace moesweep::worker {

nlohmann::json quantize_reply(const nlohmann::json& req) {
  namespace wp = worker_protocol;
  init_engine_backends();
  const char* what = "quantize request";
  const std::string in = wp::string_field(req, "in", what, 4096);
  const std::string out = wp::string_field(req, "out", what, 4096);
  llama_model_quantize_params qp = llama_model_quantize_default_params();
  qp.ftype = static_cast<llama_ftype>(wp::int_field(req, "ftype", 0, 1023, what));
  qp.allow_requantize = true;
  // Dequantized rows are F32: slabs keep that buffer small instead of a whole
  // expert tensor (384 experts x ff x hidden floats) at once.
#ifndef MOESWEEP_ENGINE_IK_LLAMA  // ik_llama.cpp's quantizer has no such limit
  qp.max_buf_size = size_t{128} << 20;
#endif
  const int64_t threads = wp::int_field(req, "n_threads", 0, 4096, what);
  qp.nthread =
      static_cast<int>(threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency()));
  uint32_t rc = 0;
  std::string log;
  {
    EngineLogCapture capture;  // per-tensor fallback warnings: returned, summarized by synth
    rc = llama_model_quantize(in.c_str(), out.c_str(), &qp);
    log = capture.text();
  }
  if (rc != 0) {
    throw UserError(fmt::format("quantizing '{}' failed (engine code {})", in, rc),
                    "a quant type the engine makes without an importance matrix",
                    "try another --quant; MOESWEEP_ENGINE_LOG=info shows the engine's reason");
  }
  return {{"ok", true}, {"log", log}};
}

}  // namespace moesweep::worker
