#include "l3_print.hpp"
#include "util/terminal_text.hpp"

#include <fmt/format.h>

#include <filesystem>

namespace moesweep::cli {
namespace {

std::string mib_text(uint64_t bytes) {
  return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1 << 20));
}

std::string pct(double v) {
  return fmt::format("{:.1f}%", 100 * v);
}

void print_popularity(const L3Analysis& a) {
  fmt::print("\npopularity    entropy  (norm)   gini  top10%  zipf_s  s_by_id  rho(id)  capped\n");
  auto row = [](const std::string& name, const Popularity& p) {
    fmt::print(
        "  {:<9}  {:>7.2f}  {:>6.3f}  {:>5.3f}  {:>5.1f}%  {:>6.2f}  {:>7.2f}  {:>7.2f}  {:>6}\n",
        name, p.entropy_bits, p.entropy_normalised, p.gini, 100 * p.top10_share, p.zipf_s,
        p.zipf_s_by_id, p.rank_id_spearman, p.experts_capped);
  };
  for (const Popularity& p : a.layers) row(fmt::format("layer {}", p.layer), p);
  row("mean", a.mean);
  print_wrapped(fmt::format(
      "  zipf_s: maximum-likelihood exponent over the experts chosen by < {:.0f}% of tokens "
      "(observed rank order; s_by_id: rank = expert id + 1, a twin's order){}",
      100 * kZipfCapShare,
      a.requested_skew >= 0 ? fmt::format("; requested s = {}", a.requested_skew) : ""));
}

void print_curve(const L3Analysis& a) {
  fmt::print(
      "\nLRU hit rate (hot set in the stream)   experts gen  hot set gen  experts prefill\n");
  const std::string no_prefill = fmt::format("n/a ({} micro-batch)", a.prefill_microbatches);
  for (const CurvePoint& c : a.curve)
    fmt::print("  {:>12}                          {:>8}  {:>11}  {}\n", mib_text(c.cache_bytes),
               pct(c.hit.generation), pct(c.hit.hot_generation),
               a.prefill_meaningful() ? pct(c.hit.prefill) : no_prefill);
  fmt::print("  unlimited (cold misses only)          {:>8}\n", pct(a.ceiling.generation));
  if (!a.prefill_meaningful())
    print_wrapped(fmt::format(
        "  prefill: the prompt fit in {} micro-batch, so every prefill read is a first read; "
        "trace with --prompt larger than --ubatch-size for a prefill hit rate",
        a.prefill_microbatches));
}

void print_targets(const L3Analysis& a) {
  fmt::print("\npredicted for decode: routed-expert hit rate (hot set hit rate)\n");
  fmt::print("  {:<24} {:>10} {:>4} {:>7} {:>7}  {:>14}  {:>14}  {:>15}  {:>8}\n", "cache", "L3",
             "dom", "thr", "dyn", "byte-LRU 1 L3", "experts alone", "band over doms", "BIP");
  for (const TargetPrediction& t : a.targets) {
    const HitRates& lru = t.band.of(CacheModel::kByteLru);
    fmt::print(
        "  {:<24} {:>10} {:>4} {:>7} {:>6.0f}%  {:>6} ({:>5})  {:>14}  {:>6} - {:>6}  {:>8}\n",
        t.target.name, mib_text(t.target.l3_bytes), t.target.layout.domain_bytes.size(),
        t.target.layout.threads(), 100 * t.dynamic_share, pct(t.with_hot.generation),
        pct(t.with_hot.hot_generation), pct(t.alone.generation), pct(t.band.pessimistic),
        pct(t.band.optimistic), pct(t.band.of(CacheModel::kBimodal).generation));
    (void)lru;
  }
  print_wrapped(fmt::format(
      "  band: byte-LRU, 16-way LRU, bimodal insertion and random replacement over the L3 "
      "domains as ggml's threads read the rows (dyn: share of expert bytes on a random "
      "domain each step){}",
      !a.targets.empty() && !a.targets.front().domains_known
          ? "; this trace names no expert matrices: one shared cache"
          : ""));
}

}  // namespace

void print_analysis(const L3Analysis& a) {
  const TraceModel& m = a.model;
  print_wrapped(fmt::format(
      "trace: {} ({}), {} experts per MoE layer, {} used; {} prefill + {} generated tokens",
      std::filesystem::path(m.path).filename().string(), m.arch, m.n_expert, m.n_expert_used,
      a.tokens_prefill, a.tokens_generation));
  print_wrapped(fmt::format(
      "bytes: routed-expert pool {}, routed per token {}, hot set per token {}",
      mib_text(m.routed_bytes_total), mib_text(m.routed_bytes_per_token()), mib_text(m.hot_bytes)));
  print_popularity(a);
  fmt::print("\nreuse (LRU stack distance of warm expert reads)\n");
  for (const LayerReuse& r : a.reuse)
    fmt::print("  layer {:>3}  {:>8} reads, {:>5.1f}% cold, median {}, p90 {}\n", r.layer, r.reads,
               r.reads ? 100.0 * r.cold / r.reads : 0.0, mib_text(r.median_bytes),
               mib_text(r.p90_bytes));
  print_curve(a);
  print_targets(a);
}

}  // namespace moesweep::cli
