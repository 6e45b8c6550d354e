#pragma once
// The quantization types a twin can be made in: the seeds' types and every
// other one the engine makes without an importance matrix.
#include <string>
#include <vector>

namespace moesweep {

// `ftype` is GGUF's general.file_type, llama.h's llama_ftype: a value fixed in
// files on disk, so moesweep keeps it without the engine's header (only the
// worker includes llama.h; tests/model checks every value against it).
struct QuantType {
  std::string name;   // Q4_K_S
  int ftype;          // 14: LLAMA_FTYPE_MOSTLY_Q4_K_S
  double approx_bpw;  // bits per weight of the big tensors, for size estimates
};

const std::vector<QuantType>& quant_types();
// Case-insensitive; throws UserError listing the valid names.
const QuantType& find_quant_type(const std::string& name);
// Inverse: the short name for an ftype read from a GGUF ("?" if unknown).
std::string quant_name_of(int ftype);

}  // namespace moesweep
