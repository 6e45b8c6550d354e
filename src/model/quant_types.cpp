#include "model/quant_types.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "util/error.hpp"

namespace moesweep {

const std::vector<QuantType>& quant_types() {
  static const std::vector<QuantType> types = {
      {"F32", LLAMA_FTYPE_ALL_F32, 32.0},
      {"F16", LLAMA_FTYPE_MOSTLY_F16, 16.0},
      {"BF16", LLAMA_FTYPE_MOSTLY_BF16, 16.0},
      {"Q8_0", LLAMA_FTYPE_MOSTLY_Q8_0, 8.5},
      {"Q6_K", LLAMA_FTYPE_MOSTLY_Q6_K, 6.56},
      {"Q5_K_M", LLAMA_FTYPE_MOSTLY_Q5_K_M, 5.7},
      {"Q5_K_S", LLAMA_FTYPE_MOSTLY_Q5_K_S, 5.54},
      {"Q5_0", LLAMA_FTYPE_MOSTLY_Q5_0, 5.5},
      {"Q5_1", LLAMA_FTYPE_MOSTLY_Q5_1, 6.0},
      {"Q4_K_M", LLAMA_FTYPE_MOSTLY_Q4_K_M, 4.85},
      {"Q4_K_S", LLAMA_FTYPE_MOSTLY_Q4_K_S, 4.58},
      {"Q4_0", LLAMA_FTYPE_MOSTLY_Q4_0, 4.5},
      {"Q4_1", LLAMA_FTYPE_MOSTLY_Q4_1, 5.0},
      {"Q3_K_L", LLAMA_FTYPE_MOSTLY_Q3_K_L, 4.27},
      {"Q3_K_M", LLAMA_FTYPE_MOSTLY_Q3_K_M, 3.91},
      {"Q3_K_S", LLAMA_FTYPE_MOSTLY_Q3_K_S, 3.5},
      {"Q2_K", LLAMA_FTYPE_MOSTLY_Q2_K, 3.0},
      {"MXFP4_MOE", LLAMA_FTYPE_MOSTLY_MXFP4_MOE, 4.25},
  };
  return types;
}

const QuantType& find_quant_type(const std::string& name) {
  std::string upper = name;
  std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
  for (const QuantType& q : quant_types())
    if (q.name == upper) return q;
  std::vector<std::string> names;
  for (const QuantType& q : quant_types()) names.push_back(q.name);
  throw UserError(fmt::format("unknown quant type '{}'", name),
                  fmt::format("one of {}", fmt::join(names, ", ")),
                  "pick one of those (types that need an importance matrix, like IQ2_XS, are not "
                  "made for twins)");
}

std::string quant_name_of(llama_ftype ftype) {
  for (const QuantType& q : quant_types())
    if (q.ftype == ftype) return q.name;
  return "?";
}

}  // namespace moesweep
