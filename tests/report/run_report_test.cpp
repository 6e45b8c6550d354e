// `moesweep report` through the real CLI and the real scripts/plot: the PNGs
// exist, are PNGs and are not empty, and the Markdown links them.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "report/run_report.hpp"
#include "results/sample_sets.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool is_png(const std::filesystem::path& p) {
  const std::string bytes = slurp(p);
  return bytes.size() > 1000 && bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0;
}

// A run directory as the sweep writes it: meta.json + records.jsonl.
std::filesystem::path write_run_dir(const std::filesystem::path& root) {
  const auto dir = root / "20261129-200000-unit";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "meta.json") << R"({"run_id": "20261129-200000-unit", "status": "complete",
      "engine": {"commit": "80fb11a"}, "cpu": {"model_name": "test CPU"}})";
  std::ofstream out(dir / "records.jsonl");
  int index = 0;
  for (int threads : {1, 2}) {
    for (int n_kv : {0, 256, 512, 768}) {
      const double pp = 120.0 * threads / (1 + n_kv / 2048.0), tg = 12.0 * threads;
      out << record_to_json(test::make_record("20261129-200000-unit", index, threads, n_kv,
                                              test::normal_samples(index, 3, pp, 2),
                                              test::normal_samples(index + 50, 3, tg, 0.3)))
                 .dump()
          << "\n";
      ++index;
    }
  }
  return dir;
}

TEST(RunReport, CliWritesMarkdownAndNonEmptyPngs) {
  const auto run_dir = write_run_dir(test::scratch_dir());
  const auto r = test::run_cli("report '" + run_dir.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto out = run_dir / "report";
  for (const char* png : {"s_vs_nkv.png", "s_vs_threads.png", "counters.png"}) {
    EXPECT_TRUE(is_png(out / png)) << png << "\n" << r.out << r.err << slurp(out / "plot.log");
  }
  const std::string md = slurp(out / "report.md");
  EXPECT_NE(md.find("![s_vs_nkv.png](s_vs_nkv.png)"), std::string::npos) << md;
  EXPECT_NE(md.find("![s_vs_threads.png](s_vs_threads.png)"), std::string::npos);
  for (const char* column : {"PP", "TG", "N_KV", "T_PP s", "S_PP t/s", "T_TG s", "S_TG t/s"}) {
    EXPECT_NE(md.find(column), std::string::npos) << column;
  }
  EXPECT_NE(md.find("### threads=1"), std::string::npos) << md;
  EXPECT_NE(md.find("no cpu PMU in this VM"), std::string::npos) << "unavailable counters named";
  EXPECT_NE(md.find("80fb11a"), std::string::npos) << "environment from meta.json";
}

TEST(RunReport, PublishedTableIsDrawnBeside) {
  const auto root = test::scratch_dir();
  const auto run_dir = write_run_dir(root);
  const std::string reference = std::string(MOESWEEP_SOURCE_DIR) +
                                "/results/reference/epyc9175f-kimi-k2.5-q4_k_s-threads.jsonl";
  const auto r = test::run_cli("report '" + run_dir.string() + "' --out '" +
                               (root / "with-ref").string() + "' --reference '" + reference + "'");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto data = nlohmann::json::parse(slurp(root / "with-ref" / "plot_data.json"));
  bool dashed = false;
  for (const auto& s : data["threads"]) dashed = dashed || s.value("reference", false);
  EXPECT_TRUE(dashed) << data.dump(1);
  EXPECT_TRUE(is_png(root / "with-ref" / "s_vs_threads.png"));
  EXPECT_NE(slurp(root / "with-ref" / "report.md").find("EPYC 9175F"), std::string::npos);
}

TEST(RunReport, MissingPlotScriptStillWritesTables) {
  const auto run_dir = write_run_dir(test::scratch_dir());
  const auto r = test::run_shell("MOESWEEP_PLOT_SCRIPT=/nonexistent " + std::string(MOESWEEP_CLI) +
                                 " report '" + run_dir.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("no plots"), std::string::npos) << r.err;
  EXPECT_NE(slurp(run_dir / "report" / "report.md").find("S_TG t/s"), std::string::npos);
}

}  // namespace
}  // namespace moesweep
