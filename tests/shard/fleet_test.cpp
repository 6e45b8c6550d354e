// A fleet of two hosts from real tiny-twin shard runs: the plan's one shard is
// run twice on this machine and the second run's meta.json is doctored into
// another host (host name, CPU, CPU count, machine class, bandwidth) before
// `merge`. The bandwidths are set from the stored S_TG and bytes per token so
// each host sits at a chosen efficiency; the fit is checked against the least
// squares of those stored numbers (no timing is asserted).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>

#include "results/record.hpp"
#include "results/run_source.hpp"
#include "support/test_support.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

struct HostRun {
  std::filesystem::path dir;
  double s_tg = 0, bytes = 0;  // the depth-0 record's, as stored
};

// plan (1 shard, 1 thread, depths 0 and 64) and one real shard run per host.
std::vector<HostRun> run_two_hosts(const std::filesystem::path& root) {
  test::tiny_twin();
  const std::string plan = (root / "P").string();
  EXPECT_EQ(test::run_cli("plan -m kimi-k2.5 --scale tiny -q Q4_K_S --ubatch-size 32 --threads 1 "
                          "--depths 0,64 -r 1 -n 4 -ctk q8_0 -ctv q8_0 -fa on --shards 1 --out " +
                          plan)
                .exit_code,
            0);
  std::vector<HostRun> hosts;
  for (const char* name : {"a", "b"}) {
    const auto out = root / "runs" / name;
    const auto r = test::run_cli("sweep --quiet --no-db --out-dir " + out.string() + " --shard " +
                                 plan + "/shard-0.json");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    HostRun h{test::only_run_dir(out)};
    for (const Record& rec : read_records_jsonl(h.dir / "records.jsonl"))
      if (rec.params.n_kv == 0) {
        h.s_tg = rec.tg.speed.mean;
        h.bytes = rec.extra["roofline"]["active_bytes_per_token"].get<double>();
      }
    EXPECT_GT(h.s_tg, 0);
    EXPECT_GT(h.bytes, 0);
    hosts.push_back(h);
  }
  return hosts;
}

// The bandwidth at which `h` decodes at `efficiency` of the roofline
// (roofline = GB/s x 1e9 / bytes per token).
double bandwidth_for(const HostRun& h, double efficiency) {
  return h.s_tg * h.bytes / (efficiency * 1e9);
}

void doctor(const HostRun& h, const nlohmann::json& bandwidth, bool other_host) {
  nlohmann::json meta = read_json_file(h.dir / "meta.json", "meta");
  meta["bandwidth"] = bandwidth;
  if (other_host) {
    meta["node"]["host"] = "doctored-16core";
    meta["node"]["cpu_model"] = "Doctored CPU 16-Core Processor";
    meta["node"]["logical_cpus"] = 16;
    meta["machine_class"]["logical_cpus"] = 16;  // merge keeps classes apart by their facts
  }
  std::ofstream(h.dir / "meta.json") << meta.dump(2);
}

std::string hosts_name(const HostRun& h) {
  return read_json_file(h.dir / "meta.json", "meta")["node"]["host"].get<std::string>();
}

std::string row_of(const std::vector<std::string>& lines, const std::string& host) {
  for (const auto& l : lines)
    if (l.find(host) != std::string::npos) return l;
  return "";
}

TEST(FleetReport, EfficiencyFigureAndCalibrationWithDoctoredSecondHost) {
  const auto root = test::scratch_dir();
  const auto hosts = run_two_hosts(root);
  ASSERT_EQ(hosts.size(), 2u);
  const double ea = 0.4, eb = 0.6;
  doctor(hosts[0], {{"gbps", bandwidth_for(hosts[0], ea)}, {"source", "measured"}}, false);
  doctor(hosts[1], {{"gbps", bandwidth_for(hosts[1], eb)}, {"source", "measured"}}, true);
  const std::string fleet = (root / "F").string();
  auto r = test::run_cli("merge " + (root / "runs" / "a").string() + " " +
                         (root / "runs" / "b").string() + " --no-db --out " + fleet);
  ASSERT_EQ(r.exit_code, 0) << r.err;

  const auto md = test::read_lines(root / "F" / "fleet.md");
  EXPECT_NE(md[1].find("decode eff. @0"), std::string::npos) << md[1];
  EXPECT_NE(row_of(md, "doctored-16core").find("60.0%"), std::string::npos) << md[4];
  const nlohmann::json table = read_json_file(root / "F" / "fleet.json", "fleet")["table"];
  ASSERT_EQ(table.size(), 2u);
  for (const auto& row : table) {
    const double want = row["hosts"] == "doctored-16core" ? eb : ea;
    EXPECT_NEAR(row["shallow"]["efficiency_tg"].get<double>(), want, 1e-9) << row.dump();
  }

  r = test::run_cli("report " + fleet);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto png = root / "F" / "fleet_bandwidth.png";
  ASSERT_TRUE(std::filesystem::exists(png)) << r.out << r.err;
  EXPECT_GT(std::filesystem::file_size(png), 1000u);
  std::ifstream in(png, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  EXPECT_EQ(std::string(magic + 1, 3), "PNG");
  const auto report_md = test::read_lines(root / "F" / "fleet.md");
  EXPECT_EQ(report_md.back(), "![fleet_bandwidth.png](fleet_bandwidth.png)");

  // Least squares through the origin over the stored numbers: roofline_i =
  // s_i / e_i, so e = sum(s_i r_i) / sum(r_i^2).
  const double ra = hosts[0].s_tg / ea, rb = hosts[1].s_tg / eb;
  const double expected = (hosts[0].s_tg * ra + hosts[1].s_tg * rb) / (ra * ra + rb * rb);
  const auto saved = root / "calibration.json";
  r = test::run_cli("predict --calibrate " + fleet + " --save " + saved.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("doctored-16core"), std::string::npos) << r.out;
  const nlohmann::json cal = read_json_file(saved, "calibration");
  EXPECT_NEAR(cal["efficiency"].get<double>(), expected, 1e-9);
  EXPECT_GT(cal["std_error"].get<double>(), 0);
  ASSERT_EQ(cal["hosts"].size(), 2u);

  // predict reads the saved factor back: expected = roofline x factor.
  r = test::run_cli(
      "predict --hardware generic --total-params 2e9 --active-params 1e9 "
      "--bandwidth 100 --calibration " +
      saved.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The line is wrapped to the terminal's width where the path is long: read it unwrapped.
  std::string flat;
  for (char c : r.out)
    if (!std::isspace(static_cast<unsigned char>(c)) || (!flat.empty() && flat.back() != ' '))
      flat += std::isspace(static_cast<unsigned char>(c)) ? ' ' : c;
  EXPECT_NE(flat.find(fmt::format("efficiency {:.0f}% of the roofline, from {}", 100 * expected,
                                  saved.string())),
            std::string::npos)
      << r.out;
}

TEST(FleetReport, NoMeasuredBandwidthSaysSoAndCalibrationIsRefusedWithDoctoredSecondHost) {
  const auto root = test::scratch_dir();
  const auto hosts = run_two_hosts(root);
  ASSERT_EQ(hosts.size(), 2u);
  doctor(hosts[0], {{"gbps", bandwidth_for(hosts[0], 0.5)}, {"source", "measured"}}, false);
  doctor(hosts[1], {{"gbps", 400.0}, {"source", "theoretical"}},
         true);  // a profile's, not measured
  const std::string fleet = (root / "F").string();
  auto r = test::run_cli("merge " + (root / "runs" / "a").string() + " " +
                         (root / "runs" / "b").string() + " --no-db --out " + fleet);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto md = test::read_lines(root / "F" / "fleet.md");
  const std::string b = row_of(md, "doctored-16core"),
                    a = row_of(md, fmt::format(" {} |", hosts_name(hosts[0])));
  EXPECT_NE(b.find("n/a (no bandwidth measured)"), std::string::npos) << b;
  EXPECT_EQ(b.find("400"), std::string::npos) << "a theoretical figure shown as measured: " << b;
  EXPECT_NE(a.find("50.0%"), std::string::npos) << a;
  const nlohmann::json table = read_json_file(root / "F" / "fleet.json", "fleet")["table"];
  for (const auto& row : table)
    if (row["hosts"] == "doctored-16core") {
      EXPECT_TRUE(row["bandwidth_gbps"].is_null());
      EXPECT_TRUE(row["shallow"]["efficiency_tg"].is_null());
      EXPECT_EQ(row["shallow"]["efficiency_text"], "n/a (no bandwidth measured)");
    }

  r = test::run_cli("predict --calibrate " + fleet);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("at least 2 hosts"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("doctored-16core (n/a (no bandwidth measured))"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace moesweep
