#include "model/twin_quantize.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <thread>

#include "engine/engine_log.hpp"
#include "llama.h"
#include "model/quant_types.hpp"
#include "util/error.hpp"

namespace moesweep {

void quantize_twin(const std::filesystem::path& skeleton, const std::filesystem::path& out,
                   int ftype, const std::filesystem::path& log) {
  ensure_engine_initialized();
  llama_model_quantize_params qp = llama_model_quantize_default_params();
  qp.ftype = static_cast<llama_ftype>(ftype);
  qp.allow_requantize = true;  // the skeleton's matrices are Q4_0/Q8_0
  // Dequantized rows are F32: slabs keep that buffer small instead of a whole
  // expert tensor (384 experts x ff x hidden floats) at once.
  qp.max_buf_size = size_t{128} << 20;
  qp.nthread = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  uint32_t rc = 0;
  {
    EngineLogCapture capture;  // per-tensor fallback warnings: to the log, summarized by synth
    rc = llama_model_quantize(skeleton.c_str(), out.c_str(), &qp);
    std::ofstream(log) << capture.text();
  }
  if (rc != 0) {
    std::error_code ec;
    std::filesystem::remove(out, ec);
    const std::string name = quant_name_of(static_cast<llama_ftype>(ftype));
    throw UserError(fmt::format("quantizing the twin to {} failed (engine code {})", name, rc),
                    "a quant type the engine makes without an importance matrix",
                    "try another --quant; MOESWEEP_ENGINE_LOG=info shows the engine's reason");
  }
}

}  // namespace moesweep
