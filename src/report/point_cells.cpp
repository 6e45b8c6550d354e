#include "report/point_cells.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "hw/noise_probe.hpp"

namespace moesweep {

std::string with_flag(double value, double cv, int decimals) {
  return fmt::format("{:.{}f}{}", value, decimals, cv > kHighCv ? " !" : "");
}

std::string mean_sd(const Stats& s) {
  return fmt::format("{:.2f} ± {:.2f}{}", s.mean, s.sd, s.cv > kHighCv ? " !" : "");
}

namespace {

// The point's steal fraction, when its record has one (older runs, an
// unreadable /proc/stat: none).
std::optional<double> steal_of(const Record& r) {
  const nlohmann::json steal = r.noise.value("steal_fraction", nlohmann::json());
  if (!steal.is_number()) return std::nullopt;
  return steal.get<double>();
}

}  // namespace

// The point's steal as a percentage, "*" when above kStealFlagFraction.
std::string steal_cell(const Record& r) {
  const std::optional<double> f = steal_of(r);
  if (!f) return "n/a";
  return fmt::format("{:.1f}%{}", 100 * *f, *f > kStealFlagFraction ? " *" : "");
}

// Whether other processes crowded the point: the probe's own verdict (it
// also asks for a few ticks of their time, NoiseReading::others_flagged),
// else the fraction against kOthersFlagFraction.
bool others_flagged(const Record& r) {
  const nlohmann::json flag = r.noise.value("others_flagged", nlohmann::json());
  if (flag.is_boolean()) return flag.get<bool>();
  const nlohmann::json others = r.noise.value("others_fraction", nlohmann::json());
  return others.is_number() && others.get<double>() > kOthersFlagFraction;
}

// Other processes' CPU time on the point's CPUs as a percentage, "+" when flagged.
std::string others_cell(const Record& r) {
  const nlohmann::json others = r.noise.value("others_fraction", nlohmann::json());
  if (!others.is_number()) return "n/a";
  return fmt::format("{:.1f}%{}", 100 * others.get<double>(), others_flagged(r) ? " +" : "");
}

std::string noise_flags(const Record& r) {
  const std::optional<double> steal = steal_of(r);
  std::string out = steal && *steal > kStealFlagFraction ? "*" : "";
  if (others_flagged(r)) out += out.empty() ? "+" : " +";
  return out;
}

// Repetitions taken; "max" when --target-ci / --target-mde was not met.
std::string repetitions_cell(const Record& r) {
  const int n = std::max(r.pp.speed.n, r.tg.speed.n);
  return fmt::format("{}{}", n, r.repetitions.target_met ? "" : " max");
}

std::string marks_legend() {
  return fmt::format(
      "`!`: coefficient of variation above {:.0f}%: noisy, rerun with more -r.\n"
      "`*`: CPU steal above {:.0f}% of the point's wall time x CPUs (the hypervisor ran others "
      "here): distrust, rerun.\n"
      "`+`: other processes (not the engine, not a planned co-tenant) used over {:.0f}% of the "
      "point's CPUs: rerun quiet.\n"
      "`max`: --target-ci / --target-mde not reached within --max-repetitions or --max-time.\n",
      100 * kHighCv, 100 * kStealFlagFraction, 100 * kOthersFlagFraction);
}

}  // namespace moesweep
