// scripts/plot draws `moesweep hw --json`'s noise profile (key "noise") as
// noise_profile.png: the CV against sample time with the recommended time,
// and the CV against the pause. From hand-made profiles; no figure asserted.
#include <gtest/gtest.h>

#include "hw/noise_profile.hpp"
#include "report/plots.hpp"
#include "support/noise_profiles.hpp"
#include "support/test_support.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> names(const PlotOutcome& drawn) {
  std::vector<std::string> out;
  for (const fs::path& png : drawn.pngs) out.push_back(png.filename().string());
  return out;
}

TEST(NoisePlot, HwJsonsNoiseProfileIsDrawn) {
  NoiseProfile p = test::profile_with_cvs({0.2, 0.08, 0.06, 0.07});
  p.pp.push_back({512, 1, 0, 10, 0.5, 1000, 0.04});
  p.pp.push_back({1024, 2, 0, 10, 1.0, 1000, 0.03});
  p.gaps.push_back({64, 4, 0, 10, 0.064, 1000, 0.08});
  p.gaps.push_back({64, 4, 1, 10, 0.064, 1000, 0.10});
  const fs::path dir = test::scratch_dir();
  const PlotOutcome drawn = draw_plots({{"noise", to_json(p)}}, dir);
  ASSERT_EQ(names(drawn), std::vector<std::string>{"noise_profile.png"}) << drawn.problem;
  EXPECT_GT(fs::file_size(dir / "noise_profile.png"), 1000u);
}

TEST(NoisePlot, AProfileWithoutAdviceOrPausesIsDrawnToo) {
  const NoiseProfile p = test::profile_with_cvs({0.2});  // one length: no recommended time
  ASSERT_FALSE(to_json(p).contains("recommended"));
  const fs::path dir = test::scratch_dir();
  const PlotOutcome drawn = draw_plots({{"noise", to_json(p)}}, dir);
  EXPECT_EQ(names(drawn), std::vector<std::string>{"noise_profile.png"}) << drawn.problem;
}

TEST(NoisePlot, NoTgCurveNoFigure) {
  NoiseProfile p;
  p.machine_key = std::string("k");
  const fs::path dir = test::scratch_dir();
  const PlotOutcome drawn = draw_plots({{"noise", to_json(p)}}, dir);
  EXPECT_TRUE(drawn.pngs.empty());
  EXPECT_FALSE(fs::exists(dir / "noise_profile.png"));
}

}  // namespace
}  // namespace moesweep
