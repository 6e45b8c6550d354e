#include "model/quant_types.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "util/error.hpp"

namespace moesweep {

const std::vector<QuantType>& quant_types() {
  static const std::vector<QuantType> types = {
      {"F32", 0, 32.0},   {"F16", 1, 16.0},        {"BF16", 32, 16.0},   {"Q8_0", 7, 8.5},
      {"Q6_K", 18, 6.56}, {"Q5_K_M", 17, 5.7},     {"Q5_K_S", 16, 5.54}, {"Q5_0", 8, 5.5},
      {"Q5_1", 9, 6.0},   {"Q4_K_M", 15, 4.85},    {"Q4_K_S", 14, 4.58}, {"Q4_0", 2, 4.5},
      {"Q4_1", 3, 5.0},   {"Q3_K_L", 13, 4.27},    {"Q3_K_M", 12, 3.91}, {"Q3_K_S", 11, 3.5},
      {"Q2_K", 10, 3.0},  {"MXFP4_MOE", 38, 4.25},
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

std::string quant_name_of(int ftype) {
  for (const QuantType& q : quant_types())
    if (q.ftype == ftype) return q.name;
  return "?";
}

}  // namespace moesweep
