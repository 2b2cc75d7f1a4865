// Segment changes of converted SPICE models as kinks (.options pwlkinks=smooth,
// solvers::ThetaOptions::smooth_kinks; theta_stepper.hpp, "Kinks"): taken without a located
// instant, a backward-Euler restart or (fixed steps) a switching-step redo, with the key figures
// of the default treatment (every segment change a switch).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "helpers.hpp"
#include "solvers/time/theta_stepper.hpp"

namespace nsspice::testing {
namespace {

// examples/spice_rectifier_1n4007.cir over two periods: 7 forward segments, TT and CJO.
std::string rectifier(const std::string& options) {
  return "t\nV1 in 0 SIN(0 10 50)\nR1 in a 1\nD1 a out D1N4007\nC1 out 0 470u\nR2 out 0 100\n"
         ".model D1N4007 D(IS=7.03n N=1.81 RS=0.034 BV=1000 IBV=5u CJO=15p M=0.33 VJ=0.5 "
         "TT=4.32u)\n" +
         options + ".tran 20u 40m 0 20u\n.end\n";
}

double peak(const Waveforms& r, const std::string& name) {
  const std::vector<double> v = r.series(name);
  return *std::max_element(v.begin(), v.end());
}

TEST(PwlKinks, SegmentChangesNeedNoLocationOrRestart) {
  const Waveforms sw = simulate(rectifier(""));
  const Waveforms smooth = simulate(rectifier(".options pwlkinks=smooth\n"));
  ASSERT_TRUE(sw.result.ok()) << sw.diagnostics << sw.result.summary.message;
  ASSERT_TRUE(smooth.result.ok()) << smooth.diagnostics << smooth.result.summary.message;
  const auto& a = sw.result.stats;
  const auto& b = smooth.result.stats;
  // As switches: every segment change located, then two backward-Euler restart steps.
  EXPECT_GT(a.located_events, 10);
  EXPECT_GT(a.restart_steps, 2 * a.located_events);
  EXPECT_EQ(a.kink_steps, 0);
  // As kinks: none located; the restart steps are t0's two and those of damped ringing only.
  EXPECT_GT(b.kink_steps, 10);
  EXPECT_EQ(b.located_events, 0);
  EXPECT_LE(b.restart_steps, 2 + 2 * b.damped_ringing + 2 * b.floor_steps);
  EXPECT_LT(b.restart_steps, a.restart_steps / 4);
  // The same peak output within 1e-4 (both are within 2e-6 of a fixed 0.5 us step).
  const double pa = peak(sw, "v(out)"), pb = peak(smooth, "v(out)");
  EXPECT_NEAR(pb, pa, 1e-4 * pa);
}

TEST(PwlKinks, FixedStepsKeepTheTrapezoidalStepAcrossAKink) {
  const Waveforms sw = simulate_fixed(rectifier(""));
  const Waveforms smooth = simulate_fixed(rectifier(".options pwlkinks=smooth\n"));
  ASSERT_TRUE(sw.result.ok()) << sw.diagnostics << sw.result.summary.message;
  ASSERT_TRUE(smooth.result.ok()) << smooth.diagnostics << smooth.result.summary.message;
  // Switches: every mode-change step redone by backward Euler; kinks: none, the same changes.
  EXPECT_GT(sw.result.stats.switching_steps, 10);
  EXPECT_GT(smooth.result.stats.kink_steps, 10);
  EXPECT_EQ(smooth.result.stats.switching_steps, 0);
  const double pa = peak(sw, "v(out)"), pb = peak(smooth, "v(out)");
  EXPECT_NEAR(pb, pa, 1e-3 * pa);
}

TEST(PwlKinks, IdealDiodesStaySwitches) {
  // A bare ideal diode is a switch whichever the option (its pair has D = 0).
  const std::string text =
      "t\nV1 in 0 SIN(0 10 50)\nR1 in a 1\nD1 a out DI\nC1 out 0 470u\nR2 out 0 100\n"
      ".model DI D\n.options pwlkinks=smooth\n.tran 20u 40m 0 20u\n.end\n";
  const Waveforms r = simulate(text);
  ASSERT_TRUE(r.result.ok()) << r.diagnostics << r.result.summary.message;
  EXPECT_EQ(r.result.stats.kink_steps, 0);
  EXPECT_GT(r.result.stats.located_events, 1);
}

TEST(PwlKinks, UnknownValueIsAClearError) {
  const std::string d = elaboration_errors(rectifier(".options pwlkinks=soft\n"));
  EXPECT_NE(d.find("error: unknown PWLKINKS 'soft'; expected smooth or switch"), std::string::npos)
      << d;
}

TEST(PwlKinks, AMarkedPairWithoutItsOwnSlopeIsRejected) {
  // One capacitor node and one ideal-diode pair (D = 0) marked a kink: a caller's bug.
  solvers::Mlcs m;
  m.n = 1;
  m.m = 1;
  m.E.resize(1, 1);
  m.E.insert(0, 0) = 1.0;
  m.G.resize(1, 1);
  m.G.insert(0, 0) = 1.0;
  m.B.resize(1, 1);
  m.B.insert(0, 0) = 1.0;
  m.C.resize(1, 1);
  m.C.insert(0, 0) = -1.0;
  m.D.resize(1, 1);
  m.C_off.resize(1, 1);
  m.d = Eigen::VectorXd::Zero(1);
  m.kink = {1};
  solvers::ThetaOptions o;
  o.h = 1e-3;
  o.t_stop = 1;
  EXPECT_THROW(solvers::ThetaStepper(m, o), std::invalid_argument);
  m.D.insert(0, 0) = 2.0;  // with its own slope: accepted
  EXPECT_NO_THROW(solvers::ThetaStepper(m, o));
}

}  // namespace
}  // namespace nsspice::testing
