// predict's fleet fit on plain numbers: each host's efficiency is S_TG over
// predict_decode's roofline at its measured bandwidth; the least-squares
// factor across hosts; hosts without a measured bandwidth are named, never
// given a number; fewer than 2 fittable hosts are refused (exit 2).
#include <gtest/gtest.h>

#include <fstream>

#include "predict/decode_prediction.hpp"
#include "predict/fleet_fit.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

// A merged run of one host: one decode point at depth 0 reading `bytes` per token.
FleetMember member(const std::string& host, double gbps, const char* source, double s_tg,
                   double bytes = 1e9) {
  FleetMember m;
  m.meta = run_meta_from_json(
      {{"hosts", {host}},
       {"node", {{"host", host}, {"cpu_model", "CPU of " + host}, {"logical_cpus", 8}}},
       {"bandwidth", {{"gbps", gbps}, {"source", source}}}},
      "test meta.json");
  Record r;
  r.params.n_kv = 0;
  r.tg.speed.mean = s_tg;
  r.extra.roofline.emplace().active_bytes_per_token = bytes;
  m.records.push_back(r);
  return m;
}

TEST(FleetFit, EfficiencyIsSpeedOverPredictsRoofline) {
  const auto hosts = fleet_hosts({member("a", 10, "measured", 4.0)}, 0);
  ASSERT_EQ(hosts.size(), 1u);
  PredictInputs in;
  in.hardware = "generic";
  in.active_bytes_per_token = 1e9;
  in.bandwidth_gbps = 10;
  in.efficiency = 1;
  in.cpu_model_name = "any";
  EXPECT_DOUBLE_EQ(*hosts[0].roofline_tps, predict_decode(in).bound_tps);
  EXPECT_DOUBLE_EQ(*hosts[0].efficiency, 4.0 / predict_decode(in).bound_tps);
  EXPECT_EQ(hosts[0].efficiency_text, "40.0%");
}

TEST(FleetFit, RecoversACommonFactorAndNamesHostsWithoutBandwidth) {
  // Rooflines 10, 20, 40 t/s (GB/s over 1 GB per token), all at 35 %.
  const std::vector<FleetMember> members = {
      member("a", 10, "measured", 3.5), member("b", 20, "measured", 7.0),
      member("c", 40, "measured", 14.0), member("d", 500, "theoretical", 9.0)};
  const auto hosts = fleet_hosts(members, 0);
  EXPECT_FALSE(hosts[3].efficiency);
  EXPECT_EQ(hosts[3].efficiency_text, kNoBandwidth);
  const FleetFit fit = fit_fleet_efficiency(hosts, "F");
  ASSERT_EQ(fit.hosts.size(), 3u);
  EXPECT_NEAR(fit.efficiency, 0.35, 1e-12);
  EXPECT_NEAR(fit.std_error, 0, 1e-12);
  for (double r : fit.residual_tps) EXPECT_NEAR(r, 0, 1e-9);
}

TEST(FleetFit, LeastSquaresThroughTheOrigin) {
  // Rooflines 10 and 30: e = (4*10 + 9*30) / (10^2 + 30^2) = 0.31.
  const FleetFit fit = fit_fleet_efficiency(
      fleet_hosts({member("a", 10, "measured", 4), member("b", 30, "measured", 9)}, 0), "F");
  EXPECT_NEAR(fit.efficiency, 0.31, 1e-12);
  EXPECT_NEAR(fit.residual_tps[0], 4 - 3.1, 1e-9);
  EXPECT_NEAR(fit.residual_tps[1], 9 - 9.3, 1e-9);
  EXPECT_NEAR(fit.min_efficiency, 0.3, 1e-12);
  EXPECT_NEAR(fit.max_efficiency, 0.4, 1e-12);
}

TEST(FleetFit, FewerThanTwoHostsWithBandwidthAreRefused) {
  const auto hosts =
      fleet_hosts({member("a", 10, "measured", 4), member("b", 30, "theoretical", 9)}, 0);
  try {
    fit_fleet_efficiency(hosts, "F");
    FAIL() << "fitted one host";
  } catch (const UserError& e) {
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_NE(e.problem().find("b (n/a (no bandwidth measured))"), std::string::npos)
        << e.problem();
    EXPECT_FALSE(e.fix().empty());
  }
}

TEST(FleetFit, BandwidthIsTakenAtTheBestDecodesThreadCountWhereProbed) {
  // A 16-core host decoding at 2 threads pulls its 2-thread bandwidth, not its peak.
  FleetMember m = member("big", 100, "measured", 6.0);
  m.records[0].params.n_threads = 2;
  m.meta.bandwidth->by_threads = {{1, 11.0}, {2, 20.0}, {16, 100.0}};
  FleetMember unprobed = member("other", 40, "measured", 6.0);
  unprobed.records[0].params.n_threads = 3;
  unprobed.meta.bandwidth->by_threads = {{4, 30.0}};
  const auto hosts = fleet_hosts({m, unprobed}, 0);
  EXPECT_DOUBLE_EQ(*hosts[0].bandwidth_gbps, 20.0);
  EXPECT_EQ(hosts[0].bandwidth_threads, 2);
  EXPECT_EQ(hosts[0].efficiency_text, "30.0%");      // 6 t/s of 20 GB/s over 1 GB per token
  EXPECT_DOUBLE_EQ(*hosts[1].bandwidth_gbps, 40.0);  // no probe at 3 threads: the peak
  EXPECT_EQ(hosts[1].bandwidth_threads, 0);
}

// Two hosts, threads 1 and 2, depths 0 and 8192: at 1 thread both decode at
// 30% of their roofline, at 2 threads at 50%. One factor leaves residuals;
// the per-thread factors fit exactly, and a saved file gives predict the
// factor for the thread count asked.
TEST(FleetCalibrations, PerThreadCountAndDepthBucketAgainstTheSingleFactor) {
  std::vector<FleetMember> members;
  for (const auto& [host, gbps] : {std::pair{"a", 10.0}, std::pair{"b", 40.0}}) {
    FleetMember m = member(host, gbps, "measured", 0);
    m.records.clear();
    for (int threads : {1, 2})
      for (int n_kv : {0, 8192}) {
        Record r;
        r.params.n_threads = threads;
        r.params.n_kv = n_kv;
        r.tg.speed.mean = (threads == 1 ? 0.3 : 0.5) * gbps;  // roofline = GB/s at 1 GB per token
        r.extra.roofline.emplace().active_bytes_per_token = 1e9;
        m.records.push_back(r);
      }
    members.push_back(m);
  }
  const auto samples = fleet_samples(members);
  ASSERT_EQ(samples.size(), 8u);
  const CalibrationFits fits = fit_calibrations(samples);
  EXPECT_NEAR(fits.single.efficiency, 0.4, 1e-12);
  EXPECT_GT(fits.single.rms_residual_tps, 0.5);
  ASSERT_EQ(fits.by_threads.size(), 2u);
  EXPECT_EQ(fits.by_threads[0].group, "threads=1");
  EXPECT_NEAR(fits.by_threads[0].efficiency, 0.3, 1e-12);
  EXPECT_NEAR(fits.by_threads[0].rms_residual_tps, 0, 1e-9);
  EXPECT_NEAR(fits.by_threads[0].rms_single_tps, fits.single.rms_residual_tps, 1e-9);
  EXPECT_NEAR(fits.by_threads[1].efficiency, 0.5, 1e-12);
  ASSERT_EQ(fits.by_depth.size(), 2u);
  EXPECT_EQ(fits.by_depth[0].group, "N_KV 0");
  EXPECT_EQ(fits.by_depth[1].group, "N_KV 4096-16383");
  EXPECT_NEAR(fits.by_depth[1].efficiency, 0.4, 1e-12);  // both thread counts in each bucket

  const auto file = test::scratch_dir() / "cal.json";
  nlohmann::json saved = {{"efficiency", fits.single.efficiency}, {"fleet", "F"}};
  saved["calibrations"] = to_json(fits);
  std::ofstream(file) << saved.dump();
  EXPECT_NEAR(load_saved_calibration(file.string(), 2, 8192).efficiency, 0.5, 1e-12);
  EXPECT_NEAR(load_saved_calibration(file.string(), 0, 0).efficiency, 0.4, 1e-12);
  EXPECT_NEAR(load_saved_calibration(file.string(), 0, 100000).efficiency, 0.4, 1e-12)
      << "no data past 16k: the single factor";
  EXPECT_NE(load_saved_calibration(file.string(), 1).source.find("threads=1"), std::string::npos);
}

}  // namespace
}  // namespace moesweep
