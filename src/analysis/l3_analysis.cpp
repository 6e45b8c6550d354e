#include "analysis/l3_analysis.hpp"

#include <fmt/format.h>

#include <cmath>

namespace moesweep {
namespace {

nlohmann::json hits_json(const HitRates& h) {
  return {{"generation", h.generation},
          {"prefill", h.prefill},
          {"all", h.all},
          {"hot_generation", h.hot_generation},
          {"hot_prefill", h.hot_prefill}};
}

double mib(uint64_t bytes) {
  return static_cast<double>(bytes) / (1 << 20);
}

int prefill_microbatches(const RoutingTrace& trace) {
  int first = -1, n = 0;
  for (const TraceStep& s : trace.steps) {
    if (s.phase != TracePhase::kPrefill) continue;
    if (first < 0) first = s.layer;
    if (s.layer == first) ++n;
  }
  return n;
}

double requested_skew(const TraceModel& m) {
  const nlohmann::json& twin =
      m.extra.is_object() && m.extra.contains("twin") ? m.extra["twin"] : nlohmann::json();
  if (!twin.is_object()) return -1;
  const auto it = twin.find("routing_skew");
  return it != twin.end() && it->is_number() ? it->get<double>() : 0.0;
}

TargetPrediction predict_for(const CacheTarget& t, const std::vector<BlockAccess>& experts,
                             const LruCurve& with_hot_lru, const std::vector<BlockAccess>& stream,
                             const std::vector<ExpertMatrix>& matrices) {
  TargetPrediction p;
  p.target = t;
  p.alone = lru_hit_bytes(experts, t.l3_bytes).rates();
  p.with_hot = with_hot_lru.at(t.l3_bytes);
  p.domains_known = !matrices.empty();
  CacheMachine machine;
  machine.layout =
      t.layout.domain_bytes.empty() || !p.domains_known ? shared_layout(1, t.l3_bytes) : t.layout;
  machine.matrices = matrices;
  p.dynamic_share = p.domains_known ? dynamic_share(matrices, machine.layout.threads()) : 0;
  p.band = hit_band(stream, machine);
  return p;
}

}  // namespace

std::vector<ExpertMatrix> trace_expert_matrices(const TraceModel& m, bool avx512) {
  const auto& types = m.expert_matrix_types;
  if (m.hidden <= 0 || m.expert_ff <= 0 || types.empty()) return {};
  const bool fused = types.size() == 2;
  std::vector<ExpertMatrix> out =
      expert_matrices(m.hidden, m.expert_ff, fused, RowSchedule::kChunked);
  if (out.size() != types.size()) return {};
  for (size_t i = 0; i < out.size(); ++i)
    out[i].schedule = row_schedule_for(types[i], out[i].rows, /*avx2=*/true, avx512);
  return out;
}

L3Analysis analyse_trace(const RoutingTrace& trace, const std::vector<CacheTarget>& targets) {
  L3Analysis a;
  a.model = trace.model;
  a.tokens_prefill = trace.tokens(TracePhase::kPrefill);
  a.tokens_generation = trace.tokens(TracePhase::kGeneration);
  a.prefill_microbatches = prefill_microbatches(trace);
  a.layers = layer_popularity(trace);
  a.mean = overall_popularity(a.layers);
  a.requested_skew = requested_skew(trace.model);
  const std::vector<BlockAccess> experts = expert_block_accesses(trace);
  a.reuse = layer_reuse(experts, stack_distances(experts));
  const std::vector<BlockAccess> stream = model_block_accesses(trace, trace_sizes(trace.model));
  const LruCurve lru(stream, stack_distances(stream));
  for (uint64_t c : standard_cache_sizes()) a.curve.push_back({c, lru.at(c)});
  for (int i = 0; i <= 48; ++i) {  // 1 MiB .. 4 GiB, 4 points per doubling
    const auto c =
        static_cast<uint64_t>(std::ldexp(1.0, 20 + i / 4) * std::pow(2.0, (i % 4) / 4.0));
    a.fine.push_back({c, lru.at(c)});
  }
  a.ceiling = lru.ceiling();
  const std::vector<ExpertMatrix> matrices = trace_expert_matrices(trace.model);
  for (const CacheTarget& t : targets)
    a.targets.push_back(predict_for(t, experts, lru, stream, matrices));
  return a;
}

namespace {

nlohmann::json popularity_json(const Popularity& p) {
  return {{"layer", p.layer},
          {"selections", p.selections},
          {"tokens", p.tokens},
          {"entropy_bits", p.entropy_bits},
          {"entropy_normalised", p.entropy_normalised},
          {"gini", p.gini},
          {"top10_share", p.top10_share},
          {"zipf_s", p.zipf_s},
          {"zipf_s_by_id", p.zipf_s_by_id},
          {"rank_id_spearman", p.rank_id_spearman},
          {"experts_capped", p.experts_capped}};
}

nlohmann::json target_json(const TargetPrediction& t) {
  nlohmann::json band = {{"optimistic", t.band.optimistic}, {"pessimistic", t.band.pessimistic}};
  for (const ModelHits& m : t.band.models) band[model_key(m.model)] = hits_json(m.hits);
  return {{"name", t.target.name},
          {"l3_bytes", t.target.l3_bytes},
          {"threads", t.target.layout.threads()},
          {"domains", t.target.layout.domain_bytes.size()},
          {"domains_known", t.domains_known},
          {"dynamic_share", t.dynamic_share},
          {"hit_experts_alone", hits_json(t.alone)},
          {"hit_with_hot_set", hits_json(t.with_hot)},
          {"band", band}};
}

}  // namespace

nlohmann::json to_json(const L3Analysis& a) {
  nlohmann::json j;
  j["model"] = to_json(a.model);
  j["tokens"] = {{"prefill", a.tokens_prefill},
                 {"generation", a.tokens_generation},
                 {"prefill_microbatches", a.prefill_microbatches}};
  j["bytes"] = {{"hot_per_token", a.model.hot_bytes},
                {"routed_per_token", a.model.routed_bytes_per_token()},
                {"routed_total", a.model.routed_bytes_total}};
  j["popularity_mean"] = popularity_json(a.mean);
  if (a.requested_skew >= 0) j["requested_skew"] = a.requested_skew;
  for (const Popularity& p : a.layers) j["popularity"].push_back(popularity_json(p));
  for (const LayerReuse& r : a.reuse)
    j["reuse"].push_back({{"layer", r.layer},
                          {"reads", r.reads},
                          {"cold", r.cold},
                          {"median_distance_bytes", r.median_bytes},
                          {"p90_distance_bytes", r.p90_bytes}});
  // Prefill hit rates of a prompt that fit one micro-batch are first reads only: null.
  for (const CurvePoint& c : a.curve) {
    nlohmann::json hit = hits_json(c.hit);
    if (!a.prefill_meaningful()) hit["prefill"] = hit["hot_prefill"] = nullptr;
    j["curve"].push_back({{"cache_bytes", c.cache_bytes}, {"hit", hit}});
  }
  j["ceiling"] = hits_json(a.ceiling);
  for (const TargetPrediction& t : a.targets) j["targets"].push_back(target_json(t));
  return j;
}

std::string curve_csv(const L3Analysis& a) {
  std::string out = "cache_bytes,cache_mib,hit_generation,hit_prefill,hit_all,hot_hit_generation\n";
  for (const CurvePoint& c : a.curve)
    out += fmt::format("{},{:.0f},{:.6f},{},{:.6f},{:.6f}\n", c.cache_bytes, mib(c.cache_bytes),
                       c.hit.generation,
                       a.prefill_meaningful() ? fmt::format("{:.6f}", c.hit.prefill) : "",
                       c.hit.all, c.hit.hot_generation);
  return out;
}

nlohmann::json l3_plot_data(const L3Analysis& a, const std::string& title) {
  nlohmann::json series = nlohmann::json::array();
  auto add = [&](const std::string& label, double HitRates::*field, bool show) {
    if (!show) return;
    nlohmann::json s{{"label", label}};
    for (const CurvePoint& c : a.fine) {
      s["x"].push_back(mib(c.cache_bytes));
      s["y"].push_back(c.hit.*field);
    }
    series.push_back(s);
  };
  add(fmt::format("generation, experts ({} tokens)", a.tokens_generation), &HitRates::generation,
      a.tokens_generation > 0);
  add("generation, hot set", &HitRates::hot_generation, a.tokens_generation > 0);
  add(fmt::format("prefill ({} micro-batches)", a.prefill_microbatches), &HitRates::prefill,
      a.prefill_meaningful());
  nlohmann::json lines = nlohmann::json::array();
  for (const TargetPrediction& t : a.targets)
    lines.push_back(
        {{"label", fmt::format("{} L3 {:.0f} MiB", t.target.name, mib(t.target.l3_bytes))},
         {"x", mib(t.target.l3_bytes)}});
  return {{"title", title},
          {"series", series},
          {"lines", lines},
          {"pool_mib", mib(a.model.routed_bytes_total)},
          {"hot_mib", mib(a.model.hot_bytes)}};
}

}  // namespace moesweep
