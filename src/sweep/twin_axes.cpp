#include "sweep/twin_axes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "engine/engine_limits.hpp"
#include "hw/topology.hpp"
#include "model/quant_types.hpp"
#include "sweep/sweep_spec.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

const char kAutoPrefix[] = "auto-l3:";

// The number text starts with, and how many characters it took (0: none).
double leading_number(const std::string& text, size_t* used) {
  *used = 0;
  try {
    return std::stod(text, used);
  } catch (const std::exception&) {
    *used = 0;
    return 0;
  }
}

double positive_number(const std::string& text, const std::string& what) {
  size_t used = 0;
  const double v = leading_number(text, &used);
  if (used == 0 || used != text.size() || !(v > 0) || !std::isfinite(v)) {
    throw UserError(fmt::format("{}: '{}' is not a positive number", what, text),
                    "auto-l3:LO-HI with LO and HI multiples of the L3 size, e.g. auto-l3:0.25-16",
                    "fix --experts");
  }
  return v;
}

// "32M", "512MiB", "1G" or plain bytes.
uint64_t byte_size(const std::string& text) {
  size_t used = 0;
  const double v = leading_number(text, &used);
  const std::string unit = used > 0 ? text.substr(used) : "";
  const double scale = unit.empty()     ? 1.0
                       : unit[0] == 'K' ? 1024.0
                       : unit[0] == 'M' ? 1024.0 * 1024
                       : unit[0] == 'G' ? 1024.0 * 1024 * 1024
                                        : 0.0;
  if (used == 0 || !(v > 0) || scale == 0) {
    throw UserError(fmt::format("MOESWEEP_L3_BYTES='{}' is not a size", text),
                    "bytes, or a number with K, M or G (binary units), e.g. 32M",
                    "fix or unset MOESWEEP_L3_BYTES");
  }
  return static_cast<uint64_t>(v * scale);
}

}  // namespace

std::string knobs_text(const TwinKnobs& k) {
  std::string out;
  auto add = [&](const std::string& part) {
    out += fmt::format("{}{}", out.empty() ? "" : ", ", part);
  };
  if (k.experts > 0) add(fmt::format("experts {}", k.experts));
  if (k.expert_ff > 0) add(fmt::format("expert_ff {}", k.expert_ff));
  if (k.routing_skew > 0) add(fmt::format("skew {}", k.routing_skew));
  return out.empty() ? out : fmt::format(" [{}]", out);
}

ExpertsAutoL3 parse_experts_auto_l3(const std::string& text, const std::string& origin) {
  ExpertsAutoL3 r;
  const std::string what = fmt::format("{} (--experts {})", origin, text);
  const std::string range = text.substr(std::string(kAutoPrefix).size());
  const size_t dash = range.find('-');
  if (text.rfind(kAutoPrefix, 0) != 0 || dash == std::string::npos) {
    throw UserError(fmt::format("{}: not of the form auto-l3:LO-HI", what),
                    "auto-l3:LO-HI, e.g. auto-l3:0.25-16 (0.25x to 16x the L3 size)",
                    "fix --experts, or give expert counts: 8,16,32");
  }
  r.lo = positive_number(range.substr(0, dash), what);
  r.hi = positive_number(range.substr(dash + 1), what);
  if (r.hi < r.lo || r.hi / r.lo > 4096) {
    throw UserError(fmt::format("{}: {} to {} is no range auto-l3 can walk", what, r.lo, r.hi),
                    "LO <= HI and HI / LO <= 4096 (a doubling per step)", "fix --experts");
  }
  return r;
}

bool is_experts_auto_l3(const std::string& text) {
  return text.rfind(kAutoPrefix, 0) == 0;
}

uint64_t l3_bytes_for_plan() {
  if (const char* env = std::getenv("MOESWEEP_L3_BYTES"); env && *env) return byte_size(env);
  const uint64_t l3 = probe_topology().l3_total_bytes();
  if (l3 == 0) {
    throw UserError(
        "--experts auto-l3 needs this machine's L3 size, and hwloc reports no L3",
        "a machine (or VM) that shows its caches to hwloc (see `moesweep hw`)",
        "set MOESWEEP_L3_BYTES=32M to plan for a known L3, or give --experts as a list");
  }
  return l3;
}

std::vector<int> experts_for_l3(const ExpertsAutoL3& range, uint64_t l3_bytes,
                                uint64_t expert_bytes, int experts_used) {
  std::vector<int> out;
  for (double r = range.lo; r <= range.hi * (1 + 1e-9); r *= 2) {
    const double want = r * static_cast<double>(l3_bytes) / static_cast<double>(expert_bytes);
    const int n = static_cast<int>(
        std::clamp<double>(std::llround(want), experts_used + 1, engine_limits::kMaxExperts));
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  }
  return out;
}

TwinSpec twin_spec_of(const ModelChoice& choice, const TwinKnobs& knobs, const SweepSpec& spec) {
  ShapeOverrides o = spec.twin_overrides;
  if (knobs.experts > 0) o.experts = knobs.experts;
  if (knobs.expert_ff > 0) o.expert_ff = knobs.expert_ff;
  return twin_spec_for(choice.twin_profile, spec.twin_scale, o, choice.quant, spec.twin_seed,
                       knobs.routing_skew);
}

std::vector<TwinKnobs> twin_knobs_for(const ModelChoice& choice, const SweepSpec& spec,
                                      std::vector<std::string>& warnings) {
  const bool given = !spec.twin_experts.empty() || spec.twin_experts_auto.on() ||
                     !spec.twin_expert_ff.empty() || !spec.routing_skew.empty();
  const bool file = !choice.file.empty();
  if (file || twin_spec_of(choice, {}, spec).profile.shape.experts == 0) {
    if (given)
      warnings.push_back(fmt::format(
          "--experts/--expert-ff/--routing-skew apply to MoE twins only; {} '{}' is measured once",
          file ? "the file" : "the dense twin", file ? choice.file : choice.twin_profile));
    return {TwinKnobs{}};
  }
  const std::vector<int> ffs =
      spec.twin_expert_ff.empty() ? std::vector<int>{0} : spec.twin_expert_ff;
  const std::vector<double> skews =
      spec.routing_skew.empty() ? std::vector<double>{0} : spec.routing_skew;
  const uint64_t l3 = spec.twin_experts_auto.on() ? l3_bytes_for_plan() : 0;
  std::vector<TwinKnobs> out;
  for (int ff : ffs) {
    std::vector<int> experts = spec.twin_experts.empty() ? std::vector<int>{0} : spec.twin_experts;
    if (spec.twin_experts_auto.on()) {
      const ModelShape m = twin_spec_of(choice, {0, ff, 0}, spec).profile.shape;
      const double bpw = find_quant_type(choice.quant).approx_bpw;
      const auto expert_bytes = static_cast<uint64_t>(3.0 * m.hidden * m.expert_ff * bpw / 8);
      experts = experts_for_l3(spec.twin_experts_auto, l3, expert_bytes,
                               static_cast<int>(m.experts_used));
    }
    for (int e : experts)
      for (double s : skews) out.push_back({e, ff, s});
  }
  return out;
}

}  // namespace moesweep
