#include "experiments/l3_sim.hpp"

#include <fmt/format.h>

#include <cmath>

#include "analysis/cache_sim.hpp"
#include "counters/sim_cache.hpp"
#include "model/model_profile.hpp"
#include "sweep/l3_shape.hpp"
#include "util/error.hpp"
#include "util/parse_list.hpp"

namespace moesweep {
namespace {

using nlohmann::json;

constexpr int kLlWays = 16;
constexpr int kHeads = 2, kVocab = 256;  // l3_shape.hpp's small hot set

std::string ll_text(uint64_t bytes) {
  return counters::geometry_text({bytes, kLlWays, 64});
}

json opt(const std::optional<double>& v) {
  return v ? json(*v) : json(nullptr);
}

double moe_active_params(const L3SimOptions& o, int expert_ff) {
  ShapeOverrides s;
  s.layers = 1, s.hidden = o.hidden, s.heads = kHeads, s.vocab = kVocab;
  s.experts = o.experts, s.experts_used = o.experts_used, s.expert_ff = expert_ff;
  return static_cast<double>(
      count_params(scale_profile(load_model_profile("qwen3-moe"), "tiny", s)).active);
}

}  // namespace

std::vector<uint64_t> default_sim_llc_sizes() {
  std::vector<uint64_t> out;
  for (uint64_t mib = 4; mib <= 512; mib *= 2) out.push_back(mib << 20);
  return out;
}

std::vector<uint64_t> parse_sim_llc(const std::string& list, const std::string& flag) {
  std::vector<uint64_t> out;
  for (const std::string& item : split_list(list, ',')) {
    const uint64_t bytes = counters::parse_cache_size(item, flag);
    // Checked as valgrind will take it: a 16-way LL of 64-byte lines.
    counters::parse_sim_cache(fmt::format("LL={}B,{}", bytes, kLlWays), flag);
    out.push_back(bytes);
  }
  if (out.empty() || out.size() > 64)
    throw UserError(fmt::format("{}: '{}' names {} sizes", flag, list, out.size()),
                    "1 to 64 LL sizes, e.g. 4MiB,32MiB,512MiB", "give a comma list of sizes");
  return out;
}

std::vector<L3SimTwin> l3_sim_twins(const L3SimOptions& o) {
  std::vector<L3SimTwin> out;
  for (double s : o.skews) out.push_back({fmt::format("MoE skew {:g}", s), s, false});
  if (o.dense) out.push_back({"dense", 0, true});
  return out;
}

int sim_expert_ff(const L3SimOptions& o) {
  // Q8_0: 34 bytes per 32 weights, three matrices of hidden x ff per expert.
  const double per_ff = 3.0 * o.hidden * 34 / 32;
  const double ff = static_cast<double>(o.pool_bytes) / (o.experts * per_ff);
  return std::max(256, static_cast<int>(std::lround(ff / 256)) * 256);
}

int sim_dense_ff(const L3SimOptions& o, int expert_ff) {
  return dense_ff_matching({o.hidden, o.experts_used, 1}, moe_active_params(o, expert_ff));
}

std::map<std::string, json> l3_sim_settings(const L3SimOptions& o, const L3SimTwin& twin,
                                            int expert_ff, int dense_ff, uint64_t ll_bytes) {
  std::map<std::string, json> s = {
      {"name",
       fmt::format("{}-{}", o.name, twin.dense ? "dense" : fmt::format("s{:g}", twin.skew))},
      {"model", twin.dense ? "llama3-70b" : "qwen3-moe"},
      {"quant", "Q8_0"},
      {"scale", "tiny"},
      {"layers", 1},
      {"hidden", o.hidden},
      {"heads", kHeads},
      {"vocab", kVocab},
      {"threads", "1"},
      {"depths", "0"},
      {"n-prompt", 32},
      // The prompt is one ubatch: the context the plan derives (depth 0 + PP +
      // TG, at least 64) holds it, so the engine keeps the planned ubatch (the
      // default 512 it would cut to the context, and every point would fail).
      {"ubatch-size", 32},
      {"n-gen", o.n_gen},
      {"repetitions", o.repetitions},
      {"counters", ll_bytes > 0 ? "sim" : "none"}};
  if (twin.dense) {
    s["dense-ff"] = dense_ff;
  } else {
    s["experts"] = std::to_string(o.experts);
    s["experts-used"] = o.experts_used;
    s["expert-ff"] = std::to_string(expert_ff);
    s["routing-skew"] = fmt::format("{:g}", twin.skew);
  }
  if (ll_bytes > 0) s["sim-cache"] = fmt::format("LL={}B,{}", ll_bytes, kLlWays);
  return s;
}

void take_simulated(L3SimPoint& p, const json& tg) {
  const auto number = [&](const char* key) -> std::optional<double> {
    if (tg.is_object() && tg.contains(key) && tg[key].is_number()) return tg[key].get<double>();
    if (p.sim_unavailable.empty() && tg.is_object() && tg.contains(key) && tg[key].is_object())
      p.sim_unavailable = tg[key].value("unavailable", std::string("unavailable"));
    return std::nullopt;
  };
  p.sim_hit = number("ll_hit_rate");
  p.sim_dram = number("dram_bytes_per_token");
  if ((!p.sim_hit || !p.sim_dram) && p.sim_unavailable.empty())
    p.sim_unavailable = "the run has no simulated TG counts";
}

void add_trace_model(L3SimCurve& c, const RoutingTrace& trace) {
  const TraceModel& m = trace.model;
  c.hot_bytes = m.hot_bytes;
  c.routed_bytes_per_token = m.routed_bytes_per_token();
  c.routed_bytes_total = m.routed_bytes_total;
  const std::vector<BlockAccess> stream = model_block_accesses(trace, trace_sizes(m));
  const LruCurve lru(stream, stack_distances(stream));
  const double hot = static_cast<double>(m.hot_bytes);
  const double routed = static_cast<double>(c.routed_bytes_per_token);
  for (L3SimPoint& p : c.points) {
    const HitRates h = lru.at(p.ll_bytes);
    const double dram = hot * (1 - h.hot_generation) + routed * (1 - h.generation);
    p.model_dram = dram;
    p.model_hit = hot + routed > 0 ? 1 - dram / (hot + routed) : 0;
  }
}

void add_dense_model(L3SimCurve& c, uint64_t weight_bytes) {
  c.hot_bytes = weight_bytes;
  for (L3SimPoint& p : c.points) {
    const bool fits = weight_bytes <= p.ll_bytes;
    p.model_hit = fits ? 1.0 : 0.0;
    p.model_dram = fits ? 0.0 : static_cast<double>(weight_bytes);
  }
}

json l3_sim_json(const std::vector<L3SimCurve>& curves) {
  json out = json::array();
  for (const L3SimCurve& c : curves) {
    json points = json::array();
    for (const L3SimPoint& p : c.points)
      points.push_back({{"ll_bytes", p.ll_bytes},
                        {"sim_ll_hit_rate", opt(p.sim_hit)},
                        {"sim_dram_bytes_per_token", opt(p.sim_dram)},
                        {"sim_unavailable", p.sim_unavailable},
                        {"model_hit_rate", opt(p.model_hit)},
                        {"model_dram_bytes_per_token", opt(p.model_dram)},
                        {"run", p.run_dir}});
    out.push_back({{"twin", c.twin.label},
                   {"skew", c.twin.skew},
                   {"dense", c.twin.dense},
                   {"hot_bytes", c.hot_bytes},
                   {"routed_bytes_per_token", c.routed_bytes_per_token},
                   {"routed_bytes_total", c.routed_bytes_total},
                   {"points", points}});
  }
  return out;
}

std::string l3_sim_markdown(const std::vector<L3SimCurve>& curves, const std::string& cache_note) {
  const auto pct = [](const std::optional<double>& v) {
    return v ? fmt::format("{:.1f}%", 100 * *v) : std::string("n/a");
  };
  const auto mb = [](const std::optional<double>& v) {
    return v ? fmt::format("{:.3f}", *v / 1e6) : std::string("n/a");
  };
  std::string out = fmt::format(
      "Simulated LL (valgrind callgrind, 16-way, 64-byte lines; {}) against the trace-based "
      "byte-LRU model of the same twin (weights only). TG per token.\n\n",
      cache_note);
  for (const L3SimCurve& c : curves) {
    out += fmt::format("### {} (hot set {:.2f} MiB, routed {:.2f} MiB per token of {:.0f} MiB)\n\n",
                       c.twin.label, c.hot_bytes / 1048576.0, c.routed_bytes_per_token / 1048576.0,
                       c.routed_bytes_total / 1048576.0);
    out +=
        "| LL | engine LL hit rate | engine DRAM MB/token | model hit rate | model DRAM MB/token "
        "|\n"
        "|---|--:|--:|--:|--:|\n";
    for (const L3SimPoint& p : c.points)
      out += fmt::format("| {} | {} | {} | {} | {} |\n", ll_text(p.ll_bytes), pct(p.sim_hit),
                         p.sim_dram ? mb(p.sim_dram) : "n/a (" + p.sim_unavailable + ")",
                         pct(p.model_hit), mb(p.model_dram));
    out += "\n";
  }
  return out;
}

json l3_sim_plot_data(const std::vector<L3SimCurve>& curves) {
  json hit = {{"file", "l3_sim_hit_rate.png"},
              {"title", "simulated LL (engine) and byte-LRU model (trace), TG"},
              {"xlabel", "LL size (MiB)"},
              {"ylabel", "hit rate"},
              {"log_x", true},
              {"series", json::array()}};
  json dram = hit;
  dram["file"] = "l3_sim_dram.png";
  dram["ylabel"] = "DRAM MB per token";
  for (const L3SimCurve& c : curves) {
    json eh = {{"label", c.twin.label + " engine (sim)"}},
         mh = {{"label", c.twin.label + " model"}};
    json ed = eh, md = mh;
    for (const L3SimPoint& p : c.points) {
      const double x = p.ll_bytes / 1048576.0;
      if (p.sim_hit) eh["x"].push_back(x), eh["y"].push_back(*p.sim_hit);
      if (p.sim_dram) ed["x"].push_back(x), ed["y"].push_back(*p.sim_dram / 1e6);
      if (p.model_hit) mh["x"].push_back(x), mh["y"].push_back(*p.model_hit);
      if (p.model_dram) md["x"].push_back(x), md["y"].push_back(*p.model_dram / 1e6);
    }
    for (json* s : {&eh, &mh}) hit["series"].push_back(*s);
    for (json* s : {&ed, &md}) dram["series"].push_back(*s);
  }
  return {{"title", "l3-run --simulate"}, {"xy", {hit, dram}}};
}

}  // namespace moesweep
