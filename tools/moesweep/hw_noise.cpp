#include "hw_noise.hpp"

#include <fmt/format.h>

#include "hw/noise_probe.hpp"
#include "util/decimal_number.hpp"
#include "util/error.hpp"
#include "util/parse_list.hpp"

#include "util/terminal_text.hpp"

namespace moesweep::cli {
namespace {

std::vector<int> int_list(const std::string& text, const char* flag) {
  std::vector<int> out;
  for (int64_t v : parse_int_list(text, flag)) {
    if (v < 1 || v > (1 << 20))
      throw UserError(fmt::format("{} {}: {} is out of range", flag, text, v),
                      "counts from 1 upwards", fmt::format("fix {}", flag));
    out.push_back(static_cast<int>(v));
  }
  return out;
}

std::vector<double> number_list(const std::string& text, const char* flag) {
  std::vector<double> out;
  for (const std::string& word : split_list(text)) {
    const std::optional<double> v = parse_decimal(word);
    if (!v || !(*v >= 0))
      throw UserError(fmt::format("{} {}: '{}' is not a number of seconds", flag, text, word),
                      "seconds >= 0 as decimal numbers, comma-separated, e.g. 0,1,4",
                      fmt::format("fix {}", flag));
    out.push_back(*v);
  }
  return out;
}

void print_curve(const char* head, const std::vector<NoiseCurvePoint>& curve, bool gaps) {
  if (curve.empty()) return;
  fmt::print("{:>22} {:>8} {:>10} {:>12} {:>8}\n", head, "samples", "sample s", "t/s", "CV");
  for (const NoiseCurvePoint& p : curve)
    fmt::print("{:>22} {:>8} {:>10.3g} {:>12.1f} {:>7.1f}%\n",
               gaps ? fmt::format("{:g} s", p.gap_s) : fmt::format("{}", p.tokens), p.samples,
               p.median_s, p.mean_tps, 100 * p.cv);
}

}  // namespace

void add_noise_options(CLI::App& cmd, NoiseFlags& f) {
  NoiseMeasureOptions& o = f.options;
  cmd.add_option("--noise-model", o.model, "model of --noise: a twin profile (tiny) or GGUF file")
      ->capture_default_str();
  cmd.add_option("--noise-tg", f.tg,
                 "TG tokens per sample of --noise, each a multiple of the first")
      ->capture_default_str();
  cmd.add_option("--noise-pp", f.pp, "PP ubatches per sample of --noise")->capture_default_str();
  cmd.add_option("--noise-gaps", f.gaps, "pauses (s) before each sample of --noise's pause curve")
      ->capture_default_str();
  cmd.add_option("--noise-gap-tg", o.gap_tg_tokens, "TG tokens per sample of the pause curve")
      ->capture_default_str();
  cmd.add_option("--noise-repetitions", o.repetitions, "samples per length of --noise")
      ->capture_default_str();
  cmd.add_option("--noise-threads", o.threads, "engine threads of --noise")->capture_default_str();
  cmd.add_option("--noise-depth", o.depth, "N_KV of --noise's samples")->capture_default_str();
}

NoiseMeasureOptions noise_options(const NoiseFlags& f) {
  NoiseMeasureOptions o = f.options;
  o.tg_tokens = int_list(f.tg, "--noise-tg");
  o.pp_ubatches = f.pp.empty() ? std::vector<int>{} : int_list(f.pp, "--noise-pp");
  o.gaps_s = f.gaps.empty() ? std::vector<double>{} : number_list(f.gaps, "--noise-gaps");
  check_noise_options(o);  // before anything is said or started
  return o;
}

void print_noise_profile(const NoiseProfile& p, bool table) {
  print_wrapped(fmt::format("noise profile: {}, {} thread(s), N_KV {}, {} ({})", p.model, p.threads,
                            p.depth, p.engine, p.measured_at));
  if (table) {
    print_curve("TG tokens per sample", p.tg, false);
    print_curve("PP tokens per sample", p.pp, false);
    print_curve("pause before a sample", p.gaps, true);
    print_wrapped(fmt::format(
        "meanwhile: load {}, steal {}, other processes {} of the CPUs",
        p.load_1m ? fmt::format("{:.2f}", *p.load_1m) : "unavailable",
        p.steal_fraction ? fmt::format("{:.1f}%", 100 * *p.steal_fraction) : "unavailable",
        p.others_fraction ? fmt::format("{:.1f}%", 100 * *p.others_fraction) : "unavailable"));
  }
  if ((p.others_fraction && *p.others_fraction > kOthersFlagFraction) ||
      (p.steal_fraction && *p.steal_fraction > kStealFlagFraction))
    print_wrapped(
        fmt::format("busy: other processes or the hypervisor held the CPUs while it was measured; "
                    "this is the profile of a busy machine"));
  const SampleTimeAdvice a = recommended_sample_time(p);
  if (a.seconds <= 0) {
    print_wrapped(fmt::format(
        "sample time: the profile cannot tell (fewer than two TG lengths); sweeps take one "
        "call of -n per sample"));
    return;
  }
  print_wrapped(fmt::format(
      "sample time: the CV of S_TG stops falling at {} tokens ({:.1f}%, best {:.1f}%{}); "
      "sweeps' samples last at least {:.2g} s (--min-sample-time)",
      a.tokens, 100 * a.cv, 100 * a.best_cv,
      a.still_falling ? ", still falling at the longest length" : "", a.seconds));
}

}  // namespace moesweep::cli
