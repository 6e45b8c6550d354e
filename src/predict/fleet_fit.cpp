#include "predict/fleet_fit.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>

#include "results/run_source.hpp"
#include "util/error.hpp"
#include "util/json_fields.hpp"
#include "util/json_file.hpp"
#include "util/paths.hpp"

namespace moesweep {
namespace {

// The probe's figure at `threads` in one "bandwidth" fact (0: not probed).
double probed_at(const BandwidthFacts& b, int threads) {
  for (const ThreadBandwidth& p : b.by_threads)
    if (p.threads == threads) return p.gbps;
  return 0;
}

// The bandwidth measured on the member's hosts (the best of its shard runs) at
// the thread count of the decode it is compared with, where the probe ran that
// many threads: 2 threads of a 16-core host pull far less than its peak. Else
// the peak (threads 0). A hardware profile's theoretical figure is no measurement.
std::optional<FleetBandwidth> measured_bandwidth(const RunMeta& meta, int threads) {
  std::vector<BandwidthFacts> figures;
  if (meta.merge)
    for (const MergeSource& s : meta.merge->sources)
      if (s.bandwidth) figures.push_back(*s.bandwidth);
  if (figures.empty() && meta.bandwidth) figures.push_back(*meta.bandwidth);
  std::optional<FleetBandwidth> peak, at_threads;
  for (const BandwidthFacts& b : figures) {
    if (b.source != "measured") continue;
    const double gbps = b.gbps, at = probed_at(b, threads);
    if (gbps > 0 && (!peak || gbps > peak->gbps)) peak = FleetBandwidth{gbps, 0};
    if (at > 0 && (!at_threads || at > at_threads->gbps)) at_threads = FleetBandwidth{at, threads};
  }
  return at_threads ? at_threads : peak;
}

double recorded_bytes(const Record& r) {
  return r.extra.roofline ? r.extra.roofline->active_bytes_per_token.value_or(0.0) : 0.0;
}

FleetHost host_of(const FleetMember& m, int n_kv) {
  FleetHost h;
  const NodeFacts node = m.meta.node.value_or(NodeFacts{"?", "?", "", 0, {}});
  h.hosts = fmt::format("{}", fmt::join(m.meta.hosts, ","));
  if (h.hosts.empty()) h.hosts = node.host;
  h.machine = m.meta.machine_class ? machine_class_id(*m.meta.machine_class) : "";
  h.cpu = node.cpu_model;
  h.hardware_profile = node.hardware_profile;
  h.logical_cpus = node.logical_cpus;
  h.n_kv = n_kv;
  int threads = 0;
  for (const Record& r : m.records) {
    if (!r.ok || r.params.n_kv != n_kv) continue;
    h.s_pp = std::max(h.s_pp, r.pp.speed.mean);
    if (r.tg.speed.mean > h.s_tg) {
      h.s_tg = r.tg.speed.mean, h.bytes_per_token = recorded_bytes(r);
      threads = r.params.n_threads;
    }
  }
  if (const auto bw = measured_bandwidth(m.meta, threads)) {
    h.bandwidth_gbps = bw->gbps;
    h.bandwidth_threads = bw->threads;
  }
  return h;
}

}  // namespace

Fleet load_fleet(const std::filesystem::path& dir) {
  if (!std::filesystem::exists(dir / "fleet.json")) {
    throw UserError(fmt::format("{} is no fleet directory (no fleet.json)", dir.string()),
                    "the --out of `moesweep merge` over runs of several machine classes",
                    "merge the shard runs of every host: moesweep merge RUNS... --out FLEET");
  }
  const std::string origin = (dir / "fleet.json").string();
  const nlohmann::json index = read_json_file(dir / "fleet.json", "fleet index");
  const JsonFields fields(index, origin);
  Fleet f{dir, fields.text("plan_id", "?"), {}};
  for (const JsonFields& m : fields.objects("runs")) {
    const std::string sub = m.text("dir");
    check_path_component(sub, "run folder", origin);  // the runs lie inside the fleet
    const std::filesystem::path run = dir / sub;
    f.members.push_back({read_run_meta(run), read_records_jsonl(run / "records.jsonl")});
  }
  return f;
}

int fleet_depth(const std::vector<FleetMember>& members, bool deepest) {
  int d = -1;
  for (const FleetMember& m : members)
    for (const Record& r : m.records)
      if (r.ok && (d < 0 || (deepest ? r.params.n_kv > d : r.params.n_kv < d))) d = r.params.n_kv;
  return d;
}

double fleet_roofline_tps(const std::string& hardware_profile, double bytes_per_token,
                          double bandwidth_gbps) {
  PredictInputs in;
  in.hardware = hardware_profile.empty() ? "generic" : hardware_profile;
  in.active_bytes_per_token = bytes_per_token;
  in.bandwidth_gbps = bandwidth_gbps;
  in.efficiency = 1.0;  // the bound itself: no calibration looked up
  in.cpu_model_name = "fleet host";
  try {
    return predict_decode(in).bound_tps;
  } catch (const UserError&) {  // a profile this checkout lacks: the bound needs none
    in.hardware = "generic";
    return predict_decode(in).bound_tps;
  }
}

std::vector<FleetHost> fleet_hosts(const std::vector<FleetMember>& members, int n_kv) {
  std::vector<FleetHost> out;
  for (const FleetMember& m : members) {
    FleetHost h = host_of(m, n_kv);
    if (!h.bandwidth_gbps) {
      h.efficiency_text = kNoBandwidth;
    } else if (h.s_tg <= 0) {
      h.efficiency_text = fmt::format("n/a (no S_TG at depth {})", n_kv);
    } else if (h.bytes_per_token <= 0) {
      h.efficiency_text = "n/a (no bytes per token recorded)";
    } else {
      h.roofline_tps = fleet_roofline_tps(h.hardware_profile, h.bytes_per_token, *h.bandwidth_gbps);
      h.efficiency = h.s_tg / *h.roofline_tps;
      h.efficiency_text = fmt::format("{:.1f}%", 100 * *h.efficiency);
    }
    out.push_back(std::move(h));
  }
  return out;
}

FleetFit fit_fleet_efficiency(const std::vector<FleetHost>& hosts, const std::string& fleet_name) {
  FleetFit fit;
  std::vector<std::string> without;
  for (const FleetHost& h : hosts) {
    if (h.efficiency) {
      fit.hosts.push_back(h);
    } else {
      without.push_back(fmt::format("{} ({})", h.hosts, h.efficiency_text));
    }
  }
  fit.n_kv = hosts.empty() ? -1 : hosts.front().n_kv;
  if (fit.hosts.size() < 2) {
    throw UserError(
        fmt::format("fleet {} has {} host(s) with a measured bandwidth and a decode speed at "
                    "depth {}; without: {}",
                    fleet_name, fit.hosts.size(), fit.n_kv, fmt::join(without, "; ")),
        "at least 2 hosts with a measured bandwidth to fit the efficiency factor across",
        "measure the bandwidth on each host (`moesweep hw --bandwidth` before its sweep) and "
        "merge again; or give predict --efficiency");
  }
  // S_TG = e x roofline through the origin: e = sum(s b) / sum(b^2).
  double sb = 0, bb = 0;
  for (const FleetHost& h : fit.hosts)
    sb += h.s_tg * *h.roofline_tps, bb += *h.roofline_tps * *h.roofline_tps;
  fit.efficiency = sb / bb;
  double rss = 0;
  fit.min_efficiency = fit.max_efficiency = *fit.hosts.front().efficiency;
  for (const FleetHost& h : fit.hosts) {
    fit.residual_tps.push_back(h.s_tg - fit.efficiency * *h.roofline_tps);
    rss += fit.residual_tps.back() * fit.residual_tps.back();
    fit.min_efficiency = std::min(fit.min_efficiency, *h.efficiency);
    fit.max_efficiency = std::max(fit.max_efficiency, *h.efficiency);
  }
  fit.std_error = std::sqrt(rss / static_cast<double>(fit.hosts.size() - 1) / bb);
  return fit;
}

nlohmann::json to_json(const FleetFit& fit, const std::string& fleet, const std::string& plan_id) {
  nlohmann::json hosts = nlohmann::json::array();
  for (size_t i = 0; i < fit.hosts.size(); ++i) {
    const FleetHost& h = fit.hosts[i];
    hosts.push_back({{"hosts", h.hosts},
                     {"cpu", h.cpu},
                     {"bandwidth_gbps", *h.bandwidth_gbps},
                     {"s_tg", h.s_tg},
                     {"bytes_per_token", h.bytes_per_token},
                     {"roofline_tps", *h.roofline_tps},
                     {"efficiency", *h.efficiency},
                     {"residual_tps", fit.residual_tps[i]}});
  }
  return {{"efficiency", fit.efficiency},
          {"std_error", fit.std_error},
          {"min_efficiency", fit.min_efficiency},
          {"max_efficiency", fit.max_efficiency},
          {"n_kv", fit.n_kv},
          {"fleet", fleet},
          {"plan_id", plan_id},
          {"hosts", hosts}};
}

std::vector<FleetSample> fleet_samples(const std::vector<FleetMember>& members) {
  std::vector<FleetSample> out;
  for (const FleetMember& m : members) {
    const FleetHost host = host_of(m, -1);  // names and profile; the speeds are per record here
    for (const Record& r : m.records) {
      const double bytes = recorded_bytes(r);
      if (!r.ok || r.tg.speed.mean <= 0 || bytes <= 0) continue;
      const auto bw = measured_bandwidth(m.meta, r.params.n_threads);
      if (!bw) continue;
      out.push_back({host.hosts, r.params.n_threads, r.params.n_kv, r.tg.speed.mean,
                     fleet_roofline_tps(host.hardware_profile, bytes, bw->gbps)});
    }
  }
  return out;
}

namespace {

constexpr int kDepthBucketEnds[] = {1, 4096, 16384, 65536};  // each bucket's first depth past it
constexpr const char* kDepthBucketNames[] = {"N_KV 0", "N_KV 1-4095", "N_KV 4096-16383",
                                             "N_KV 16384-65535", "N_KV 65536+"};

int depth_bucket_index(int n_kv) {
  int i = 0;
  for (int end : kDepthBucketEnds) i += n_kv >= end;
  return i;
}

}  // namespace

std::string depth_bucket(int n_kv) {
  return kDepthBucketNames[depth_bucket_index(n_kv)];
}

namespace {

// Least squares of S_TG = e x roofline through the origin over `xs`, and the
// RMS residual of that factor and of `single` on the same samples.
FactorFit fit_factor(const std::string& group, const std::vector<const FleetSample*>& xs,
                     double single) {
  FactorFit f{group, static_cast<int>(xs.size())};
  double sb = 0, bb = 0;
  for (const FleetSample* x : xs)
    sb += x->s_tg * x->roofline_tps, bb += x->roofline_tps * x->roofline_tps;
  if (xs.empty() || bb <= 0) return f;
  f.efficiency = sb / bb;
  double rss = 0, rss_single = 0;
  for (const FleetSample* x : xs) {
    rss += std::pow(x->s_tg - f.efficiency * x->roofline_tps, 2);
    rss_single += std::pow(x->s_tg - single * x->roofline_tps, 2);
  }
  const double n = static_cast<double>(xs.size());
  f.std_error = xs.size() > 1 ? std::sqrt(rss / (n - 1) / bb) : 0;
  f.rms_residual_tps = std::sqrt(rss / n);
  f.rms_single_tps = std::sqrt(rss_single / n);
  return f;
}

template <typename Key>
std::vector<FactorFit> fits_by(const std::vector<FleetSample>& samples, double single, Key key_of) {
  std::map<std::pair<int, std::string>, std::vector<const FleetSample*>> groups;
  for (const FleetSample& x : samples) groups[key_of(x)].push_back(&x);
  std::vector<FactorFit> out;
  for (const auto& [key, xs] : groups)
    if (xs.size() >= 2) out.push_back(fit_factor(key.second, xs, single));
  return out;
}

nlohmann::json factor_json(const FactorFit& f) {
  return {{"group", f.group},
          {"samples", f.samples},
          {"efficiency", f.efficiency},
          {"std_error", f.std_error},
          {"rms_residual_tps", f.rms_residual_tps},
          {"rms_single_factor_tps", f.rms_single_tps}};
}

}  // namespace

CalibrationFits fit_calibrations(const std::vector<FleetSample>& samples) {
  std::vector<const FleetSample*> all;
  for (const FleetSample& x : samples) all.push_back(&x);
  CalibrationFits c;
  c.single = fit_factor("all", all, 0);
  c.single = fit_factor("all", all, c.single.efficiency);
  c.by_threads = fits_by(samples, c.single.efficiency, [](const FleetSample& x) {
    return std::make_pair(x.threads, fmt::format("threads={}", x.threads));
  });
  c.by_depth = fits_by(samples, c.single.efficiency, [](const FleetSample& x) {
    return std::make_pair(depth_bucket_index(x.n_kv), depth_bucket(x.n_kv));
  });
  return c;
}

nlohmann::json to_json(const CalibrationFits& fits) {
  nlohmann::json threads = nlohmann::json::array(), depth = nlohmann::json::array();
  for (const FactorFit& f : fits.by_threads) threads.push_back(factor_json(f));
  for (const FactorFit& f : fits.by_depth) depth.push_back(factor_json(f));
  return {{"single", factor_json(fits.single)}, {"by_threads", threads}, {"by_depth", depth}};
}

namespace {

// The saved factor of `group` in a calibration file's list, if fitted there.
std::optional<double> saved_factor(const nlohmann::json& list, const std::string& group) {
  if (!list.is_array()) return std::nullopt;
  for (const auto& f : list)
    if (f.is_object() && f.value("group", "") == group && f.contains("efficiency") &&
        f["efficiency"].is_number() && f["efficiency"].get<double>() > 0)
      return f["efficiency"].get<double>();
  return std::nullopt;
}

}  // namespace

Calibration load_saved_calibration(const std::string& file, int threads, int64_t depth) {
  const nlohmann::json j = read_json_file(file, "calibration file");
  const double e = j.is_object() && j.contains("efficiency") && j["efficiency"].is_number()
                       ? j["efficiency"].get<double>()
                       : 0.0;
  if (!(e > 0)) {
    throw UserError(fmt::format("{} has no positive \"efficiency\"", file),
                    "a file `moesweep predict --calibrate FLEET --save FILE` wrote",
                    "write it again with --calibrate ... --save, or give --efficiency");
  }
  const nlohmann::json fits = j.value("calibrations", nlohmann::json::object());
  const std::string by_threads = fmt::format("threads={}", threads);
  const std::string by_depth =
      depth >= 0 ? depth_bucket(static_cast<int>(std::min<int64_t>(depth, INT32_MAX))) : "";
  for (const auto& [list, group] :
       {std::pair{"by_threads", threads > 0 ? by_threads : ""}, std::pair{"by_depth", by_depth}}) {
    if (group.empty() || !fits.is_object()) continue;
    if (const auto f = saved_factor(fits.value(list, nlohmann::json()), group))
      return Calibration{*f, fmt::format("{} (the factor fitted for {} in fleet {})", file, group,
                                         j.value("fleet", "?"))};
  }
  return Calibration{e, fmt::format("{} (fit over {} host(s) of fleet {}, +-{:.1f} points)", file,
                                    j.value("hosts", nlohmann::json::array()).size(),
                                    j.value("fleet", "?"), 100 * j.value("std_error", 0.0))};
}

}  // namespace moesweep
