// What the plots show: thread counts as whole-number ticks (never 1.2, 1.4),
// and the decode roofline on the S_TG side where the records carry one. The
// data from plot_data(), then the real scripts/plot drawing it.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "report/plots.hpp"
#include "results/sample_sets.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

// threads {1, 2} x depths {0, 256, 512}; the sweep's roofline in `extra` when
// asked, `scale` times the default (40 t/s at depth 0, S_TG about 10 and 20).
LoadedRun run_with_roofline(bool roofline, double scale = 1) {
  LoadedRun run;
  run.label = "20261130-plot";
  int index = 0;
  for (int threads : {1, 2}) {
    for (int n_kv : {0, 256, 512}) {
      Record r = test::make_record(run.label, index, threads, n_kv,
                                   test::normal_samples(index, 3, 100.0 * threads, 2),
                                   test::normal_samples(index + 50, 3, 10.0 * threads, 0.3));
      if (roofline) r.extra.roofline.emplace().roofline_tg = scale * (40.0 - n_kv / 100.0);
      run.records.push_back(r);
      ++index;
    }
  }
  return run;
}

TEST(Plots, DataCarriesThreadTicksAndTheRooflineWhereRecorded) {
  const nlohmann::json with = plot_data(run_with_roofline(true), {});
  EXPECT_EQ(with["threads_ticks"], nlohmann::json::parse("[1, 2]"));
  ASSERT_FALSE(with["nkv"].empty());
  for (const auto& s : with["nkv"]) {
    ASSERT_TRUE(s.contains("roofline_tg")) << s.dump();
    EXPECT_EQ(s["roofline_tg"].size(), s["x"].size());
  }
  EXPECT_DOUBLE_EQ(with["nkv"][0]["roofline_tg"][1].get<double>(), 40.0 - 2.56);
  const nlohmann::json without = plot_data(run_with_roofline(false), {});
  for (const auto& s : without["nkv"]) EXPECT_FALSE(s.contains("roofline_tg")) << s.dump();
}

// Loads scripts/plot as a module and prints the S_TG axis' ticks and line labels.
test::CommandResult inspect_figure(const std::filesystem::path& data, const std::string& axis,
                                   const std::string& ticks_key) {
  const std::string py =
      "import importlib.machinery, json\n"
      "m = importlib.machinery.SourceFileLoader('plot', '" +
      plot_script_path().string() +
      "').load_module()\n"
      "d = json.load(open('" +
      data.string() +
      "'))\n"
      "fig = m.speed_figure(d['" +
      axis + "'], 'x', 't', x_ticks=d.get('" + ticks_key +
      "'))\n"
      "tg = fig.axes[1]\n"
      "print('ticks', ' '.join(repr(float(t)) for t in tg.get_xticks()))\n"
      "print('lines', '|'.join(l.get_label() for l in tg.get_lines()))\n"
      "print('ymax', tg.get_ylim()[1])\n"
      "print('notes', '|'.join(t.get_text().replace(chr(10), ' ') for t in tg.texts))\n";
  const auto script = data.parent_path() / (axis + "-inspect.py");
  std::ofstream(script) << py;
  return test::run_shell("/usr/bin/python3 '" + script.string() + "'");
}

TEST(Plots, ScriptDrawsWholeThreadTicksAndTheDecodeRoofline) {
  const auto dir = test::scratch_dir();
  const nlohmann::json data = plot_data(run_with_roofline(true), {});
  const PlotOutcome drawn = draw_plots(data, dir);
  ASSERT_FALSE(drawn.pngs.empty()) << drawn.problem;
  for (const char* png : {"s_vs_nkv.png", "s_vs_threads.png"})
    EXPECT_GT(std::filesystem::file_size(dir / png), 1000u) << png;

  auto r = inspect_figure(dir / "plot_data.json", "threads", "threads_ticks");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("ticks 1.0 2.0\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("decode roofline (measured bandwidth)"), std::string::npos) << r.out;

  r = inspect_figure(dir / "plot_data.json", "nkv", "none");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("decode roofline (measured bandwidth)"), std::string::npos) << r.out;
  const size_t at = r.out.find("ticks ");
  ASSERT_NE(at, std::string::npos) << r.out;
  std::istringstream ticks(r.out.substr(at + 6, r.out.find('\n', at) - at - 6));
  for (double t; ticks >> t;) EXPECT_EQ(t, static_cast<double>(static_cast<long>(t))) << r.out;
}

// The tiny twin's roofline is about 6x its S_TG: drawn to scale it would
// flatten the curves, so it is stated in a note and the axis fits the curves.
TEST(Plots, ARooflineFarAboveTheCurvesIsANoteNotTheAxisTop) {
  const auto dir = test::scratch_dir();
  const nlohmann::json data = plot_data(run_with_roofline(true, 6), {});
  ASSERT_FALSE(draw_plots(data, dir).pngs.empty());
  auto r = inspect_figure(dir / "plot_data.json", "nkv", "none");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("decode roofline (measured bandwidth)|"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("notes decode roofline (measured bandwidth): 209-240 t/s"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("off this scale"), std::string::npos) << r.out;
  const size_t at = r.out.find("ymax ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const double ymax = std::stod(r.out.substr(at + 5));
  EXPECT_LT(ymax, 60) << r.out;  // the curves' top (S_TG about 20), not the roofline's 240
  EXPECT_GT(ymax, 20) << r.out;
  // Near the curves it is still drawn as a line, without a note.
  const auto near = test::scratch_dir() / "near";
  ASSERT_FALSE(draw_plots(plot_data(run_with_roofline(true), {}), near).pngs.empty());
  r = inspect_figure(near / "plot_data.json", "nkv", "none");
  EXPECT_NE(r.out.find("decode roofline (measured bandwidth)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("notes \n"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace moesweep
