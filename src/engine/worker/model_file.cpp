#include "engine/worker/model_file.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "llama.h"
#include "util/error.hpp"

namespace moesweep::worker {

void check_gguf_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    throw UserError(fmt::format("model file '{}' does not exist", path), "a GGUF file",
                    "check the path, or use a twin: -m kimi-k2.5 --quant Q4_K_S");
  }
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  if (in.gcount() != 4 || std::string(magic, 4) != "GGUF") {
    throw UserError(fmt::format("'{}' is not a GGUF file (bad magic)", path),
                    "a file starting with 'GGUF'",
                    "point -m at the .gguf (for split models, the -00001-of-000NN part)");
  }
}

std::string model_meta(const llama_model* model, const std::string& key) {
  char buf[256];
  const int n = llama_model_meta_val_str(model, key.c_str(), buf, sizeof(buf));
  return n < 0 ? std::string() : std::string(buf);
}

ModelFacts model_facts_of(const llama_model* model, const std::string& path) {
  char desc[256];
  llama_model_desc(model, desc, sizeof(desc));
  ModelFacts f;
  f.path = path;
  f.description = desc;
  f.arch = model_meta(model, "general.architecture");
  f.size_bytes = llama_model_size(model);
  f.n_params = llama_model_n_params(model);
  return f;
}

}  // namespace moesweep::worker
