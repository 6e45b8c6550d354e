// moesweep keeps GGUF's file types as numbers (model/quant_types.hpp) so that
// only the worker includes llama.h; this checks every one against the header
// of the engine this build runs.
#include <gtest/gtest.h>

#include <map>

#include "llama.h"
#include "model/quant_types.hpp"

namespace moesweep {
namespace {

TEST(QuantTypeValues, EveryFtypeIsTheEnginesOwn) {
  const std::map<std::string, llama_ftype> engine = {
      {"F32", LLAMA_FTYPE_ALL_F32},          {"F16", LLAMA_FTYPE_MOSTLY_F16},
      {"BF16", LLAMA_FTYPE_MOSTLY_BF16},     {"Q8_0", LLAMA_FTYPE_MOSTLY_Q8_0},
      {"Q6_K", LLAMA_FTYPE_MOSTLY_Q6_K},     {"Q5_K_M", LLAMA_FTYPE_MOSTLY_Q5_K_M},
      {"Q5_K_S", LLAMA_FTYPE_MOSTLY_Q5_K_S}, {"Q5_0", LLAMA_FTYPE_MOSTLY_Q5_0},
      {"Q5_1", LLAMA_FTYPE_MOSTLY_Q5_1},     {"Q4_K_M", LLAMA_FTYPE_MOSTLY_Q4_K_M},
      {"Q4_K_S", LLAMA_FTYPE_MOSTLY_Q4_K_S}, {"Q4_0", LLAMA_FTYPE_MOSTLY_Q4_0},
      {"Q4_1", LLAMA_FTYPE_MOSTLY_Q4_1},     {"Q3_K_L", LLAMA_FTYPE_MOSTLY_Q3_K_L},
      {"Q3_K_M", LLAMA_FTYPE_MOSTLY_Q3_K_M}, {"Q3_K_S", LLAMA_FTYPE_MOSTLY_Q3_K_S},
      {"Q2_K", LLAMA_FTYPE_MOSTLY_Q2_K},     {"MXFP4_MOE", LLAMA_FTYPE_MOSTLY_MXFP4_MOE},
  };
  ASSERT_EQ(quant_types().size(), engine.size()) << "a quant type without its engine value here";
  for (const QuantType& q : quant_types()) {
    SCOPED_TRACE(q.name);
    ASSERT_TRUE(engine.count(q.name));
    EXPECT_EQ(q.ftype, static_cast<int>(engine.at(q.name)));
  }
}

}  // namespace
}  // namespace moesweep
