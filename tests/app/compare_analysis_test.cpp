// The numbers `compare` reports, against closed forms: the common time base, the time-weighted
// RMS, the start-up window, the steady-state averages and ripples, and the verdict line built
// from them.
#include "app/compare/compare_analysis.hpp"

#include <cmath>
#include <numbers>

#include "app/compare/compare_metrics.hpp"
#include "app/compare/compare_report.hpp"
#include "app/compare/steady_state.hpp"
#include "app_test_helpers.hpp"

namespace nsspice::testing {
namespace {

TEST(CompareTimeBase, BothRunsSamplesInTheWindow) {
  const std::vector<double> a = {0, 1, 2, 3, 4}, b = {0, 0.5, 2, 2 + 1e-15, 3.7, 5};
  EXPECT_EQ(app::union_grid(a, b, 0.5, 3.8),
            (std::vector<double>{0.5, 1, 2, 3, 3.7, 3.8}));  // 2 + 1e-15 merged with 2
  EXPECT_EQ(app::union_grid(a, b, 1, 1), (std::vector<double>{1}));
  EXPECT_TRUE(app::union_grid(a, b, 2, 1).empty());
}

// A step's peak falls between uniform grid points but not between both runs' samples; the RMS
// weighs each interval by its length.
TEST(CompareTimeBase, PeaksAreNotMissedAndTheRmsIsTimeWeighted) {
  const std::vector<double> t = {0, 1, 2, 3, 4};
  const std::vector<double> ref = {0, 0, 0, 0, 0};
  const std::vector<double> tp = {0, 1.4, 1.5, 1.6, 4};
  const std::vector<double> peer = {0, 0, 1, 0, 0};  // a triangle of height 1, base 0.2
  const auto coarse =
      app::diff_signal("v(a)", t, ref, tp, peer, app::uniform_grid(0, 4, 1), false, 1e-3);
  EXPECT_EQ(coarse.max_abs, 0);  // the uniform grid steps over it
  const auto grid = app::union_grid(t, tp, 0, 4);
  const auto d = app::diff_signal("v(a)", t, ref, tp, peer, grid, false, 1e-3);
  EXPECT_EQ(d.max_abs, 1);
  EXPECT_EQ(d.t_max, 1.5);
  // Trapezoidal ∫ e² over [1.4, 1.6] on the samples: 2 · 0.1 · (0 + 1)/2 = 0.1; / 4 s.
  EXPECT_NEAR(d.rms, std::sqrt(0.1 / 4), 1e-15);
}

TEST(CompareWindow, StartupSkipsOnePercentOrTheFirstSwitchingAtMostTenPercent) {
  EXPECT_DOUBLE_EQ(app::auto_startup(0, 1, std::nullopt), 0.01);
  EXPECT_DOUBLE_EQ(app::auto_startup(0, 1, 0.001), 0.01);
  EXPECT_DOUBLE_EQ(app::auto_startup(0, 1, 0.05), 0.05);
  EXPECT_DOUBLE_EQ(app::auto_startup(0, 1, 0.5), 0.1);
  EXPECT_NEAR(app::auto_startup(1, 3, 1.1), 0.1, 1e-15);
}

TEST(CompareWindow, SteadyStateIsTheLastPeriods) {
  const app::SourcePeriod p{1e-3, "v1"};
  const auto w = app::steady_window(p, 0.2e-3, 20e-3);
  EXPECT_EQ(w.periods, 5);
  EXPECT_DOUBLE_EQ(w.from, 15e-3);
  EXPECT_DOUBLE_EQ(w.to, 20e-3);
  EXPECT_NE(w.how.find("last 5 periods of 1 ms (v1)"), std::string::npos) << w.how;
  const auto short_run = app::steady_window(p, 0.1e-3, 2.5e-3);
  EXPECT_EQ(short_run.periods, 2);
  EXPECT_DOUBLE_EQ(short_run.from, 0.5e-3);
  const auto none = app::steady_window(std::nullopt, 0, 10);
  EXPECT_EQ(none.periods, 0);
  EXPECT_DOUBLE_EQ(none.from, 9);
  const auto too_short = app::steady_window(p, 0, 0.5e-3);
  EXPECT_EQ(too_short.periods, 0);
  EXPECT_NE(too_short.how.find("less than one period"), std::string::npos) << too_short.how;
}

// Over whole periods a sine's average is its offset and its ripple twice its amplitude; the
// peer's offset and amplitude differ by known amounts.
TEST(CompareWindow, AveragesAndRipplesOfSinesAgainstTheirClosedForms) {
  std::vector<double> t, ref, peer;
  for (int i = 0; i <= 20000; ++i) {
    t.push_back(i * 1e-6);
    const double s = std::sin(2 * std::numbers::pi * 1e3 * t.back());
    ref.push_back(5 + 0.5 * s);
    peer.push_back(4.9 + 0.6 * s);
  }
  const auto w = app::steady_window(app::SourcePeriod{1e-3, "v1"}, 0, 20e-3);
  const auto m = app::steady_metrics("v(out)", t, ref, t, peer, w);
  EXPECT_NEAR(m.avg_ref, 5, 1e-9);
  EXPECT_NEAR(m.avg_other, 4.9, 1e-9);
  EXPECT_NEAR(m.pp_ref, 1, 1e-6);  // the samples straddle the crest by at most 1e-6 periods
  EXPECT_NEAR(m.pp_other, 1.2, 1e-6);
  EXPECT_NEAR(m.scale, 5.5, 1e-6);
  EXPECT_NEAR(m.rel_avg(), 0.1 / 5.5, 1e-9);
  EXPECT_NEAR(m.rel_pp(), 0.2 / 5.5, 1e-6);
}

// A signal quiet in the steady state (a switch transistor's supply current once it is off: 1 fA
// against the peer's −20 pA after a 20 mA pulse) is judged against a thousandth of its run's
// size, 20 µA: 1e-6, not 2e4 (= 20 pA / 1 fA).
TEST(CompareWindow, AQuietSteadyStateIsJudgedAgainstTheRunsSize) {
  std::vector<double> t, ref, peer;
  for (int i = 0; i <= 1000; ++i) {
    t.push_back(i * 1e-7);
    const bool on = t.back() > 1e-5 && t.back() < 5e-5;
    ref.push_back(on ? 20e-3 : 1e-15);
    peer.push_back(on ? 20e-3 : -20e-12);
  }
  const auto w = app::steady_window(std::nullopt, 0, 1e-4);
  const auto m = app::steady_metrics("i(vcc)", t, ref, t, peer, w);
  EXPECT_NEAR(m.scale, 20e-6, 1e-18);
  EXPECT_NEAR(m.rel_avg(), (20e-12 + 1e-15) / 20e-6, 1e-12);
}

app::CompareResult agreeing(double avg_other, double pp_other) {
  app::CompareResult r;
  r.t_stop = 1e-3;
  r.nsspice.wall_seconds = 0.1;
  r.peer.wall_seconds = 2.3;
  r.steady_metrics.push_back({"v(out)", 5, avg_other, 0.1, 0.1, 5});
  r.steady_metrics.push_back({"i(l1)", 1, 1, 0.2, pp_other, 1.2});
  return r;
}

TEST(CompareVerdict, OneLineFromTheSteadyState) {
  EXPECT_EQ(app::verdict_line(agreeing(4.94, 0.2)),
            "agree within 1.2 % (v(out) avg), ripples within 0 % (v(out)), SPICE 23× slower");
  EXPECT_EQ(app::verdict_line(agreeing(4.94, 0.5)),
            "agree within 1.2 % (v(out) avg); ripples differ by 25 % (i(l1)), SPICE 23× slower");
  auto faster = agreeing(4, 0.2);
  faster.peer.wall_seconds = 0.04;
  EXPECT_EQ(app::verdict_line(faster),
            "differ by 20 % (v(out) avg), ripples within 0 % (v(out)), SPICE 2.5× faster");
  auto file = agreeing(5, 0.2);
  file.question = app::Question::kFile;
  file.peer.wall_seconds = 0;
  EXPECT_EQ(app::verdict_line(file), "agree within 0 % (v(out) avg), ripples within 0 % (v(out))");
  auto failed = agreeing(5, 0.2);
  failed.peer.failed = true;
  failed.peer.t_end = 0.35e-3;
  failed.peer.points = 350;
  failed.peer.attempts.resize(7);
  EXPECT_EQ(app::verdict_line(failed),
            "SPICE FAILED: ngspice did not reach TSTOP = 1 ms (it stopped at t = 350 µs in the "
            "best of 7 attempts); nothing to compare");
  failed.peer.points = 0;
  failed.peer.attempts.clear();
  EXPECT_EQ(app::verdict_line(failed),
            "SPICE FAILED: ngspice did not reach TSTOP = 1 ms (it wrote no point); nothing to "
            "compare");
  auto no_steady = agreeing(5, 0.2);
  no_steady.steady_metrics.clear();
  no_steady.diffs.push_back({});
  no_steady.diffs.back().name = "v(a)";
  no_steady.diffs.back().rel = 0.031;
  EXPECT_EQ(app::verdict_line(no_steady), "agree within 3.1 % (v(a) max|err|), SPICE 23× slower");
}

}  // namespace
}  // namespace nsspice::testing
