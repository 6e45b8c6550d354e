#include "serve/slo.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <regex>

#include "util/decimal_number.hpp"
#include "util/error.hpp"
#include "util/parse_list.hpp"

namespace moesweep {
namespace {

constexpr double kMaxBoundMs = 7 * 24 * 3600e3;  // a week: the longest request timeout

[[noreturn]] void bad(const std::string& term, const std::string& why) {
  throw UserError(fmt::format("--slo term '{}' {}", term, why),
                  "METRIC[_STAT]=VALUE[ms|s], comma-separated: metric ttft, tpot, itl or e2e; "
                  "stat mean, p50, p90, p95 or p99 (p99 when left out); e.g. "
                  "ttft_p99=2000ms,tpot_p99=200ms",
                  "write each objective that way");
}

}  // namespace

double Slo::percent() const {
  return stat == "mean" ? 0 : std::stod(stat.substr(1));
}

std::string Slo::key() const {
  return metric + "_" + stat;
}

std::string Slo::label() const {
  return fmt::format("{} <= {}", key(), ms_text(bound_ms));
}

std::string ms_text(double ms) {
  if (ms >= 1000) return fmt::format("{:g} s", std::round(ms / 10) / 100);
  return fmt::format("{:g} ms", std::round(ms * 10) / 10);
}

std::vector<Slo> parse_slos(const std::string& text) {
  static const std::regex re(
      R"(^(ttft|tpot|itl|e2e)(?:_(mean|p50|p90|p95|p99))?=([0-9.eE+]+)(ms|s)?$)");
  std::vector<Slo> out;
  for (const std::string& term : split_list(text)) {
    std::smatch m;
    if (!std::regex_match(term, m, re)) bad(term, "is no objective");
    const std::optional<double> v = parse_decimal(m[3].str());
    if (!v) bad(term, "has no decimal number");
    const double ms = m[4] == "s" ? *v * 1000 : *v;
    if (!(ms > 0 && ms <= kMaxBoundMs)) bad(term, "is not a bound from 0 to a week");
    Slo s{m[1], m[2].matched ? std::string(m[2]) : "p99", ms};
    for (const Slo& o : out)
      if (o.key() == s.key()) bad(term, "repeats " + o.key());
    out.push_back(s);
  }
  return out;
}

std::string slos_label(const std::vector<Slo>& slos) {
  std::vector<std::string> parts;
  for (const Slo& s : slos) parts.push_back(s.label());
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace moesweep
