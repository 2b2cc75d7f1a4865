// Segment changes of converted SPICE models as kinks (.options pwlkinks=smooth,
// solvers::ThetaOptions::smooth_kinks; theta_stepper.hpp, "Kinks"): taken without a located
// instant, a backward-Euler restart or (fixed steps) a switching-step redo, with the key figures
// of the default treatment (every segment change a switch).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
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

// The largest difference of `name` between the dense output of `got` at the print times
// k·tstep and the rows of `ref` at the same times, relative to the signal's peak in `ref`.
double wave_error(const Waveforms& got, const Waveforms& ref, const std::string& name,
                  double tstep) {
  std::map<long, double> at;
  const int cr = ref.column(name);
  double peak = 0;
  for (size_t i = 0; i < ref.t.size(); ++i) {
    const long k = std::lround(ref.t[i] / tstep);
    peak = std::max(peak, std::abs(ref.rows[i][static_cast<size_t>(cr)]));
    if (std::abs(ref.t[i] - static_cast<double>(k) * tstep) <= 1e-9 * tstep)
      at.emplace(k, ref.rows[i][static_cast<size_t>(cr)]);
  }
  const int cg = got.column(name);
  double err = 0;
  size_t compared = 0;
  for (size_t i = 0; i < got.t.size(); ++i) {
    const long k = std::lround(got.t[i] / tstep);
    const auto it = at.find(k);
    if (it == at.end() || std::abs(got.t[i] - static_cast<double>(k) * tstep) > 1e-9 * tstep)
      continue;
    err = std::max(err, std::abs(got.rows[i][static_cast<size_t>(cg)] - it->second));
    ++compared;
  }
  EXPECT_GT(compared, at.size() / 2) << name;
  return err / peak;
}

// A diode model of 6 segments behind 1 kΩ into an RC: every segment change a located kink.
const char* kRcDiode =
    "diode into an RC\nV1 in 0 SIN(0 5 2k)\nR1 in a 1k\nD1 a out DX\nC1 out 0 1u\nR2 out 0 2k\n"
    ".model DX D(IS=1e-14 N=1.2 RS=2 CJO=5p)\n.tran 1u 2m 0 1u\n.end\n";

TEST(PwlKinks, LocatedKinksFollowTheFixedStepReference) {
  // Each segment change is located from the previous segment's solution (no pivoting) and the
  // pair takes its next segment at the located instant (no redo at the next step's start): the
  // crossing of a kink costs the step in the old mode and about one Illinois solve.
  const Waveforms run = simulate(kRcDiode, {}, true);
  circuit::TransientOptions fine;
  fine.h = 20e-9;  // within 2e-8 of the peak of h = 5 ns (measured)
  const Waveforms ref = simulate_fixed(kRcDiode, fine);
  ASSERT_TRUE(run.result.ok()) << run.diagnostics << run.result.summary.message;
  ASSERT_TRUE(ref.result.ok()) << ref.diagnostics << ref.result.summary.message;
  const auto& s = run.result.stats;
  EXPECT_GT(s.located_kinks, 20);
  EXPECT_EQ(s.located_kinks, s.located_events);  // no ideal device: every instant a kink
  EXPECT_EQ(s.lemke_calls, 0);
  // 59 extra solves for 31 instants (before: 129, the MLCP's answer then the old mode again).
  EXPECT_LE(s.location_solves, 2.5 * static_cast<double>(s.located_kinks));
  // Measured 1.7e-5 (v(out)) and 3.9e-6 (v(a)) of the peak; RELTOL is 1e-3.
  EXPECT_LT(wave_error(run, ref, "v(out)", 1e-6), 1e-4);
  EXPECT_LT(wave_error(run, ref, "v(a)", 1e-6), 1e-4);
}

TEST(PwlKinks, AGateEdgeThroughManySegmentsNeedsNoPivoting) {
  // A level-1 NMOS (15 square-law segments, a body diode of 6) switched by a gate driven through
  // 50 Ω: each gate edge crosses most segments within a step. Locating the first crossing from
  // the previous mode's solution needs no LCP pivoting (before: the MLCP's answer at the step's
  // end, by Lemke, through every segment crossed).
  const std::string text =
      "low-side switch\nVDD d 0 24\nRL d dr 12\nCL dr 0 470p\n"
      "VG gi 0 PULSE(0 12 1u 100n 100n 4u 10u)\nRG gi g 50\nCG g 0 2n\nM1 dr g 0 0 NM\n"
      ".model NM NMOS(LEVEL=1 VTO=2.5 KP=5 RD=0.05 RS=0.02)\n.tran 10n 30u 0 10n\n.end\n";
  const Waveforms run = simulate(text, {}, true);
  circuit::TransientOptions fine;
  fine.h = 0.5e-9;
  const Waveforms ref = simulate_fixed(text, fine);
  ASSERT_TRUE(run.result.ok()) << run.diagnostics << run.result.summary.message;
  ASSERT_TRUE(ref.result.ok()) << ref.diagnostics << ref.result.summary.message;
  const auto& s = run.result.stats;
  EXPECT_GT(s.located_kinks, 60);
  EXPECT_EQ(s.lemke_calls, 0);  // before: 6 (18 pivots)
  // The gate within 1e-3 of its peak; the drain, whose edges last a few ns (12 Ω, 470 pF),
  // within 5e-3 (measured 1.9e-4 and 2.6e-3 against h = 0.25 ns, which is within 5e-4 of
  // h = 0.5 ns at the drain).
  EXPECT_LT(wave_error(run, ref, "v(g)", 1e-8), 1e-3);
  EXPECT_LT(wave_error(run, ref, "v(dr)", 1e-8), 5e-3);
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
