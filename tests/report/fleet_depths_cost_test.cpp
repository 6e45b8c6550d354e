// The fleet figure's data draws predict's roofline at every depth the fleet
// recorded (the KV read per token grows with it), and the fleet table gives
// tokens/s per $1k and J/token where a host's hardware profile names a
// public price and power, "-" where it has none. Plain records, no engine.
#include <gtest/gtest.h>

#include "results/run_meta.hpp"

#include "report/fleet_figure.hpp"
#include "report/fleet_table.hpp"

namespace moesweep {
namespace {

// The table's line that names `cpu`.
std::string row_of(const std::string& table, const std::string& cpu) {
  const size_t at = table.find(cpu);
  if (at == std::string::npos) return "";
  const size_t begin = table.rfind('\n', at) + 1;
  return table.substr(begin, table.find('\n', at) - begin);
}

// One host of a merged fleet: decode at depths 0 and 4096 (more bytes per
// token there), its bandwidth measured, its hardware profile named.
FleetMember host(const std::string& name, double gbps, double s_tg, const std::string& profile) {
  FleetMember m;
  m.meta = run_meta_from_json({{"hosts", {name}},
                               {"node",
                                {{"host", name},
                                 {"cpu_model", "CPU of " + name},
                                 {"logical_cpus", 16},
                                 {"hardware_profile", profile}}},
                               {"bandwidth", {{"gbps", gbps}, {"source", "measured"}}}},
                              "test meta.json");
  for (const auto& [n_kv, bytes, speed] : {std::tuple{0, 1e9, s_tg}, {4096, 1.5e9, s_tg / 1.4}}) {
    Record r;
    r.params.n_kv = n_kv;
    r.params.n_threads = 16;
    r.tg.speed.mean = speed;
    r.extra.roofline.emplace().active_bytes_per_token = bytes;
    m.records.push_back(r);
  }
  return m;
}

TEST(FleetFigure, OneRooflinePerRecordedDepthWithItsHosts) {
  const std::vector<FleetMember> fleet = {host("a", 400, 100, "epyc-9175f"),
                                          host("b", 200, 55, "")};
  std::string why;
  const nlohmann::json d = fleet_figure_data(fleet, 0, &why);
  ASSERT_TRUE(d.is_object()) << why;
  ASSERT_EQ(d["depths"].size(), 2u) << d.dump();
  EXPECT_EQ(d["depths"][0]["n_kv"], 0);
  EXPECT_EQ(d["depths"][1]["n_kv"], 4096);
  EXPECT_EQ(d["depths"][1]["hosts"].size(), 2u);
  // The deeper roofline reads 1.5x the bytes per token: its line is lower.
  const auto& shallow = d["depths"][0]["roofline"];
  const auto& deep = d["depths"][1]["roofline"];
  EXPECT_GT(deep["bytes_per_token"].get<double>(), shallow["bytes_per_token"].get<double>());
  EXPECT_LT(deep["y"].back().get<double>(), shallow["y"].back().get<double>());
}

TEST(FleetTable, CostColumnsWhereTheProfileHasPublicFigures) {
  const std::string t =
      fleet_table({host("a", 400, 100, "epyc-9175f"), host("b", 200, 55, "generic")});
  EXPECT_NE(t.find("t/s per $1k @0"), std::string::npos) << t;
  // epyc-9175f: $15,000 and 320 W -> 100 t/s is 6.667 t/s per $1k and 3.2 J/token.
  const std::string a = row_of(t, "CPU of a");
  EXPECT_NE(a.find(" 6.667 |"), std::string::npos) << t;
  EXPECT_NE(a.find(" 3.2 |"), std::string::npos) << t;
  // generic names no price or power: "-", never a number.
  const std::string b = row_of(t, "CPU of b");
  ASSERT_FALSE(b.empty()) << t;
  EXPECT_EQ(b.find(" 6.667 |"), std::string::npos) << b;
  EXPECT_NE(b.find(" - |"), std::string::npos) << b;
}

}  // namespace
}  // namespace moesweep
