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
  const auto r = wp::decode<wp::QuantizeRequest>(req);
  const std::string& in = r.in;
  llama_model_quantize_params qp = llama_model_quantize_default_params();
  qp.ftype = static_cast<llama_ftype>(r.ftype);
  qp.allow_requantize = true;
  // Dequantized rows are F32: slabs keep that buffer small instead of a whole
  // expert tensor (384 experts x ff x hidden floats) at once.
  set_quantize_buffer(qp, size_t{128} << 20);
  qp.nthread = static_cast<int>(
      r.n_threads > 0 ? r.n_threads : std::max(1u, std::thread::hardware_concurrency()));
  uint32_t rc = 0;
  std::string log;
  {
    EngineLogCapture capture;  // per-tensor fallback warnings: returned, summarized by synth
    rc = llama_model_quantize(in.c_str(), r.out.c_str(), &qp);
    log = capture.text();
  }
  if (rc != 0) {
    throw UserError(fmt::format("quantizing '{}' failed (engine code {})", in, rc),
                    "a quant type the engine makes without an importance matrix",
                    "try another --quant; MOESWEEP_ENGINE_LOG=info shows the engine's reason");
  }
  return wp::encode(wp::QuantizeReply{log});
}

}  // namespace moesweep::worker
