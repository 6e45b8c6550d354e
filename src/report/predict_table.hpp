#pragma once
// `predict --hardware A,B,...`: one table of several machines for one model,
// seed 000's framing (a 768 GB CPU server against 4x H200) side by side:
// roofline and expected decode, whether the weights fit, tokens/s per $1000
// and joules per token where the profile has a public price and power, each
// figure's source under the table.
#include <string>
#include <vector>

#include "predict/decode_prediction.hpp"

#include "util/terminal_text.hpp"

namespace moesweep {

// kCompact: what a person compares (bandwidth, fit, roofline, expected, per
// $1k, J/token; `*` marks a figure at the roofline), within 120 columns;
// kWide adds memory, price, power and the bandwidth's source.
std::string prediction_table(const std::vector<Prediction>& predictions,
                             TableWidth width = TableWidth::kWide);
// The cost lines under one prediction: price, power, per-$1k and J/token.
std::string cost_lines(const Prediction& p);

}  // namespace moesweep
