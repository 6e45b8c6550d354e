#include "predict_l3.hpp"

#include <fmt/format.h>

#include "util/error.hpp"
#include "util/terminal_text.hpp"

namespace moesweep::cli {

void print_l3_term(const PredictL3Input& o) {
  if (o.model_profile.empty())
    throw UserError("predict --trace needs --model",
                    "a model profile: its routed and non-routed bytes split the bytes per token",
                    "add --model PROFILE (e.g. kimi-k2.5)");
  const L3TermPrediction r = predict_l3_term(o);
  const ModelProfile& p = r.model;
  print_wrapped(fmt::format(
      "L3 term (the read stream of {} with {} experts, {} used, at {}'s sizes{}):",
      r.trace_file.filename().string(), r.trace_model.n_expert, r.trace_model.n_expert_used, p.name,
      r.trace_model.n_expert == p.shape.experts
          ? ""
          : fmt::format("; NOTE {} has {} experts, the trace's model {}", p.name, p.shape.experts,
                        r.trace_model.n_expert)));
  print_wrapped(fmt::format(
      "  L3 {:.0f} MiB; one shared LRU: experts hit {:.1f}%, hot set ({:.2f} GB/token) hit "
      "{:.1f}%",
      r.l3_bytes / (1 << 20), 100 * r.shared.hits.generation, r.bytes.in.hot_bytes / 1e9,
      100 * r.shared.hits.hot_generation));
  print_wrapped(fmt::format(
      "  over {} L3 domain(s) at {} threads ({:.0f}% of expert bytes on a random domain "
      "each step): experts hit {:.1f}% to {:.1f}% (byte-LRU, 16-way LRU, BIP, random)",
      r.machine.layout.domain_bytes.size(), r.machine.layout.threads(), 100 * r.dynamic_share,
      100 * r.band.pessimistic, 100 * r.band.optimistic));
  fmt::print("  decode roofline without L3: {:.2f} tok/s ({:.2f} GB/token from DRAM)\n",
             r.shared.tps_no_l3, r.shared.dram_bytes_no_l3 / 1e9);
  print_wrapped(fmt::format(
      "  decode roofline with L3:    {:.2f} tok/s shared LRU; {:.2f} to {:.2f} tok/s over "
      "the domains",
      r.shared.tps_with_l3, r.tps_pessimistic, r.tps_optimistic));
}

}  // namespace moesweep::cli
