#pragma once
// `synth`'s twin-selecting options (--model, --scale, --layers, --hidden, ...,
// --seed), turned into a spec by model/twin_spec.hpp's twin_spec_for; the sweep
// takes the same settings through its spec (sweep_spec.cpp).
#include <CLI/CLI.hpp>

#include <string>
#include <utility>
#include <vector>

#include "model/model_profile.hpp"
#include "model/twin_spec.hpp"

namespace moesweep::cli {

struct TwinOptions {
  std::string model = "kimi-k2.5";
  std::string scale = "tiny";
  ShapeOverrides overrides;
  uint64_t seed = 42;
  double routing_skew = 0;  // twin_routing.hpp; 0 = the random router

  void add_to(CLI::App& cmd, bool model_flag_is_profile = true);
  // The spec for one quant type; UserError for a shape flag given as 0 or less.
  TwinSpec spec_for(const std::string& quant) const;

 private:
  std::vector<std::pair<CLI::Option*, const int64_t*>> given_;  // shape flags, their values
};

std::string human_count(int64_t n);   // 1.04T, 32.9B, 512M
std::string human_bytes(uint64_t n);  // 143.2 MiB

}  // namespace moesweep::cli
