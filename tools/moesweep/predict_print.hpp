#pragma once
// `moesweep predict`'s text for one hardware profile: the hardware, the
// model's bytes per token, the roofline (with the L3 term of a routing trace
// when given), the efficiency and expected speed, the cost lines and what a
// target speed needs.
#include <string>

#include "predict/decode_prediction.hpp"

namespace moesweep::cli {

// trace: a routing trace (`predict --trace`), or "".
void print_prediction(const PredictInputs& o, const Prediction& p, const std::string& trace);

}  // namespace moesweep::cli
