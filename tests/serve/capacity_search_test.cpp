// The capacity search: on probes whose outcome is a known function of the
// rate (the bracket and the estimate are exact there), and end to end through
// serve-bench --find-capacity against a loopback test double whose latency
// grows with load in a known way (queue_server_double.hpp): its capacity
// under the SLO follows from its service time, and the search must find it
// within its interval.
#include <gtest/gtest.h>

#include <cmath>

#include "queue_server_double.hpp"
#include "serve/capacity_search.hpp"
#include "serve_fixture.hpp"
#include "support/test_support.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

// A server whose worst SLO ratio is rate / capacity: met up to `capacity`.
std::function<std::optional<CapacityProbe>(double)> linear(double capacity, int* calls) {
  return [capacity, calls](double rate) -> std::optional<CapacityProbe> {
    ++*calls;
    return CapacityProbe{rate, rate <= capacity, rate / capacity};
  };
}
const std::function<double()> no_time = [] { return 0.0; };

TEST(CapacitySearch, BracketsThenBisectsToThePrecision) {
  int calls = 0;
  CapacitySettings s;
  s.precision = 0.05;
  const CapacityResult r = find_capacity(linear(3.7, &calls), 1.0, s, no_time);
  ASSERT_EQ(r.outcome, "found") << r.to_json().dump();
  EXPECT_LE(r.lo, 3.7);
  EXPECT_GT(r.hi, 3.7);
  EXPECT_LE(r.hi / r.lo, 1.05);
  EXPECT_NEAR(r.estimate, 3.7, 1e-9);  // log(ratio) is linear in log(rate) here
  EXPECT_EQ(calls, static_cast<int>(r.probes.size()));
  EXPECT_EQ(r.text("ttft_p99 <= 2 s").rfind("capacity 3.7 req/s [", 0), 0u) << r.text("");
}

TEST(CapacitySearch, SaysWhenTheCapacityIsOutsideEveryRateTried) {
  int calls = 0;
  CapacitySettings s;
  s.max_steps = 3;
  const CapacityResult below = find_capacity(linear(0.01, &calls), 1.0, s, no_time);
  EXPECT_EQ(below.outcome, "below");
  EXPECT_DOUBLE_EQ(below.hi, 0.125);  // 1, 0.5, 0.25, 0.125 all missed
  EXPECT_NE(below.text("x").find("capacity below 0.125"), std::string::npos);
  const CapacityResult above = find_capacity(linear(1e6, &calls), 1.0, s, no_time);
  EXPECT_EQ(above.outcome, "above");
  EXPECT_DOUBLE_EQ(above.lo, 8);
  EXPECT_TRUE(above.to_json()["interval_req_per_s"][1].is_null());
}

TEST(CapacitySearch, TheBudgetAndAStopEndItWithTheIntervalReached) {
  int calls = 0;
  double clock = 0;
  CapacitySettings s;
  s.budget_s = 3;
  auto probe = [&](double rate) -> std::optional<CapacityProbe> {
    clock += 1;  // each probe takes a second
    return linear(3.7, &calls)(rate);
  };
  const CapacityResult r = find_capacity(probe, 1.0, s, [&] { return clock; });
  EXPECT_EQ(r.probes.size(), 3u);  // 1, 2, 4: the budget is spent before the fourth
  EXPECT_EQ(r.outcome, "found");
  EXPECT_EQ(r.stopped, "the time budget was spent");
  const CapacityResult none = find_capacity(
      [](double) -> std::optional<CapacityProbe> { return std::nullopt; }, 1.0, s, no_time);
  EXPECT_EQ(none.outcome, "none");
  EXPECT_EQ(none.stopped, "stopped");
}

// The double serves one request in 100 ms, so 10 requests/s. With 40 nearly
// even arrivals (burstiness 100) at a rate r above that, request k waits
// about k (0.1 - 1/r) s; the SLO allows 300 ms of waiting beyond the first
// token's 50 ms, so the 40th request misses it from
// r = 10 / (1 - 0.3 / (40 * 0.1)) = 10.8 req/s: the capacity, give or take the
// double's sleeps on a loaded machine and the arrivals' jitter.
TEST(CapacitySearch, FindsTheKnownCapacityOfATestDoubleServer) {
  serve_test::QueueServerDouble server(std::chrono::milliseconds(100));
  const auto dir = test::scratch_dir();
  const auto wl = serve_test::write_workload(dir, "ol", R"({"kind": "open-loop",
      "prompt_tokens": 16, "output_tokens": 2, "cache_protocol": {"warmup": 0}})");
  const auto r = test::run_cli(fmt::format(
      "serve-bench --url {} --workload {} --find-capacity --slo ttft_p99=350ms --num-requests 40 "
      "--burstiness 100 --capacity-precision 0.05 --no-db --out-dir {}",
      server.url(), wl.string(), (dir / "runs").string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double known = 10 / (1 - 0.3 / (40 * 0.1));
  const auto summary = read_json_file(test::only_run_dir(dir / "runs") / "summary.json", "summary");
  const auto& c = summary[0]["capacity"];
  ASSERT_EQ(c["outcome"], "found") << c.dump(2);
  const double lo = c["interval_req_per_s"][0].get<double>();
  const double hi = c["interval_req_per_s"][1].get<double>();
  EXPECT_LE(lo, known * 1.15) << c.dump(2);  // the interval reaches the known capacity
  EXPECT_GE(hi, known * 0.85) << c.dump(2);
  EXPECT_NEAR(c["estimate_req_per_s"].get<double>(), known, known * 0.2) << c.dump(2);
  EXPECT_NE(r.out.find("capacity "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("at ttft_p99 <= 350 ms"), std::string::npos) << r.out;
  // Its first probe sent everything at once: the server's throughput, about 10/s.
  EXPECT_EQ(summary[0]["rates"][0]["rate"], "inf");
  EXPECT_EQ(summary[0]["rates"].size(), c["probes"].size() + 1);
  EXPECT_GT(server.served(), 40 * 3);
  // report draws the rates (plot_data.json, whether or not matplotlib is here);
  // compare joins the requests per rate.
  const auto run = test::only_run_dir(dir / "runs");
  ASSERT_EQ(test::run_cli(fmt::format("report {}", run.string())).exit_code, 0);
  const auto plots = read_json_file(run / "report" / "plot_data.json", "plot data");
  std::string files;
  for (const auto& fig : plots["serve"]) files += fig["file"].get<std::string>() + " ";
  for (const char* f : {"ttft_by_rate.png", "tpot_by_rate.png", "goodput_by_rate.png"})
    EXPECT_NE(files.find(f), std::string::npos) << files;
  const auto cmp = test::run_cli(fmt::format("compare {} {}", run.string(), run.string()));
  EXPECT_EQ(cmp.exit_code, 0) << cmp.err;
  EXPECT_NE(cmp.out.find("ol @ inf req/s"), std::string::npos) << cmp.out;
}

}  // namespace
}  // namespace moesweep
