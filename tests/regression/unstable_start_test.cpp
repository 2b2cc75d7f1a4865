// Runs that start on an unstable equilibrium (circuit/src/unstable_start.hpp,
// solvers/time/equilibrium_stability.hpp). The growth rate against closed forms (a negative
// conductance on an RC node; the same on an LC tank), the run leaving the equilibrium only with
// the kick, and two oscillators whose DC operating point is their unstable equilibrium against
// ngspice-39 on the same decks (default settings; figures stored): a 3-stage CMOS ring and a
// BJT astable, which sat on their operating points for the whole run before (exit 0, no word).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "circuit/analysis.hpp"
#include "helpers.hpp"
#include "solvers/time/equilibrium_stability.hpp"

namespace nsspice::testing {
namespace {

std::string all_warnings(const Waveforms& w) {
  return fmt::format("{}", fmt::join(w.result.warnings, "\n"));
}

// The largest |v| of `signal` over from ≤ t < to.
double peak(const Waveforms& w, const std::string& signal, double from, double to = 1e300) {
  const auto s = w.series(signal);
  double p = 0;
  for (size_t k = 0; k < s.size(); ++k)
    if (w.t[k] >= from && w.t[k] < to) p = std::max(p, std::abs(s[k]));
  return p;
}

// C v' = (g − 1/R) v: μ = (2 mS − 1 mS)/1 µF = 1000 /s, real; the kick is VNTOL = 1 µV along it,
// so |v(t)| = 1 µV·e^(1000 t): 22.0 mV at 10 ms.
const char* kNegativeRc = R"(negative conductance on an RC node
G1 0 n n 0 2m
R1 n 0 1k
C1 n 0 1u
.tran 10u 10m
.end
)";

TEST(UnstableStart, ARealGrowthRateIsTheClosedFormAndTheKickGrowsAtIt) {
  const Waveforms w = simulate(kNegativeRc);
  ASSERT_TRUE(w.result.ok()) << w.result.summary.message;
  const auto s = solvers::equilibrium_stability(w.assembled.mlcs, {}, 1.0 / 10e-3);
  ASSERT_TRUE(s.checked);
  ASSERT_TRUE(s.growing.has_value());
  EXPECT_NEAR(s.growing->mu.real(), 1000.0, 1e-6);
  EXPECT_EQ(s.growing->mu.imag(), 0.0);
  EXPECT_NE(all_warnings(w).find("is an unstable equilibrium: about it the circuit grows as "
                                 "e^(μt), μ = 1e+03 /s (e-folding time 0.001 s)"),
            std::string::npos)
      << all_warnings(w);
  // The kick: v(0) = 1 µV. Error control (RELTOL 1e-3) over 10 e-folds of growth: within 3 %;
  // the fixed step 10 µs (hμ = 0.01): within 2e-4 (the trapezoid's (hμ)³/12 per step over 1000
  // steps, 8e-5, and the backward-Euler restart steps at t0).
  EXPECT_NEAR(std::abs(w.series("v(n)").front()), 1e-6, 1e-15);
  EXPECT_NEAR(std::abs(w.series("v(n)").back()) / (1e-6 * std::exp(10.0)), 1.0, 0.03);
  const Waveforms fixed = simulate_fixed(kNegativeRc);
  ASSERT_TRUE(fixed.result.ok()) << fixed.result.summary.message;
  EXPECT_NEAR(std::abs(fixed.series("v(n)").back()) / (1e-6 * std::exp(10.0)), 1.0, 2e-4);
}

// An LC tank with a negative conductance g − G = 0.1 mS: μ = α ± jβ, α = (g − G)/(2C) = 50 /s,
// β = √(1/(LC) − α²) = √(1e9 − 2500) /s (5.03 kHz); ideal diodes to ±1 V sources clamp the
// growing oscillation at ±1 V.
std::string tank(const std::string& gm, const std::string& extra = "") {
  return "LC oscillator clamped at +-1 V\nG1 0 n n 0 " + gm +
         "\nR1 n 0 1k\nC1 n 0 1u\nL1 n 0 1m\n"
         "D1 n a DI\nVA a 0 1\nD2 b n DI\nVB b 0 -1\n.model DI D\n" +
         extra + ".tran 10u 20m\n.end\n";
}

TEST(UnstableStart, AnOscillatingGrowthIsTheClosedFormAndTheClampsSetTheAmplitude) {
  const Waveforms w = simulate(tank("1.1m"));
  ASSERT_TRUE(w.result.ok()) << w.result.summary.message;
  std::vector<char> mode(static_cast<size_t>(w.assembled.mlcs.m), 0);  // both clamps off at 0 V
  const auto s = solvers::equilibrium_stability(w.assembled.mlcs, mode, 1.0 / 20e-3);
  ASSERT_TRUE(s.growing.has_value());
  EXPECT_NEAR(s.growing->mu.real(), 50.0, 1e-6);
  EXPECT_NEAR(std::abs(s.growing->mu.imag()), std::sqrt(1e9 - 2500.0), 1e-3);
  EXPECT_NE(all_warnings(w).find("oscillating at 5.03e+03 Hz"), std::string::npos)
      << all_warnings(w);
  // 1 µV·e^(50 t) reaches the clamps near t = ln(1e6)/50 = 276 ms: beyond this 20 ms run. The
  // tank rings up from the kick at its growth rate only: |v| ≈ 1 µV·e^(50·0.02) = 2.7 µV.
  EXPECT_NEAR(std::abs(w.series("v(n)").front()), 1e-6, 1e-15);
  EXPECT_NEAR(peak(w, "v(n)", 0.019) / (1e-6 * std::exp(1.0)), 1.0, 0.03);
}

TEST(UnstableStart, AFastGrowthReachesTheClampsAndKeepLeavesTheEquilibrium) {
  // g − G = 10 mS: α = 5000 /s, the clamps reached within 3 ms.
  const Waveforms w = simulate(tank("11m"));
  ASSERT_TRUE(w.result.ok()) << w.result.summary.message;
  EXPECT_NEAR(peak(w, "v(n)", 10e-3), 1.0, 1e-6);
  EXPECT_LT(peak(w, "v(n)", 0.0), 1.0 + 1e-6);

  const Waveforms kept = simulate(tank("11m", ".options unstableop=keep\n"));
  ASSERT_TRUE(kept.result.ok()) << kept.result.summary.message;
  EXPECT_LT(peak(kept, "v(n)", 0.0), 1e-12);
  EXPECT_NE(all_warnings(kept).find(".options unstableop=keep keeps the run on it"),
            std::string::npos)
      << all_warnings(kept);
}

// A Wien bridge around an amplifier of gain 1000 limited to ±10 V (Rf/Rg = 2.2): closed-loop
// gain G = 3.19 against the bridge's 3, so s² + (3 − G)ω0 s + ω0² = 0, μ = 949 ± 9950j /s
// (ω0 = 1/RC = 1e4). Its operating point is 0 V everywhere. The limiter's inside (the behavioural
// source's internal nodes) moves ~500× more than any capacitor node along the growing mode: the
// kick is VNTOL on the capacitor node that moves most (v(a)), not on those (which left the
// circuit's state at nanovolts). Under error control the amplitude then follows e^(Re μ t).
const char* kWien = R"(Wien bridge oscillator, limited amplifier
E1 out 0 value={LIMIT(1000*(V(p)-V(n)),-10,10)}
R1 out a 10k
C1 a p 10n
R2 p 0 10k
C2 p 0 10n
Rf out n 22k
Rg n 0 10k
.tran 1u 10m
.end
)";

TEST(UnstableStart, TheKickIsSizedOnTheStateAndTheGrowthFollowsMu) {
  const Waveforms w = simulate(kWien);
  ASSERT_TRUE(w.result.ok()) << w.result.summary.message;
  EXPECT_NE(all_warnings(w).find("μ = 949 ± 9.95e+03j /s"), std::string::npos) << all_warnings(w);
  EXPECT_NE(all_warnings(w).find("(v(a) moves most)"), std::string::npos) << all_warnings(w);
  EXPECT_NEAR(std::abs(w.series("v(a)").front()), 1e-6, 1e-15);
  // Five milliseconds of growth at Re μ = 949 /s: e^4.745 = 115 (the trapezoid's own growth is
  // a few % slower at the steps error control takes here, up to 51 µs).
  EXPECT_NEAR(std::log(peak(w, "v(out)", 9e-3, 10e-3) / peak(w, "v(out)", 4e-3, 5e-3)) / 5e-3,
              949.0, 949.0 * 0.08);
}

// A 3-stage CMOS ring (level 1): its operating point puts every node at 1.65 V, every
// inverter at its switching point. ngspice-39, same deck: 2.5112 ns per cycle between the 12th
// and 14th rise, swing 0.0796–3.2204 V over 10–20 ns.
const char* kRing = R"(3-stage CMOS ring oscillator, level 1
VDD vdd 0 3.3
MP1 a c vdd vdd PCH W=4u L=1u
MN1 a c 0 0 NCH W=2u L=1u
MP2 b a vdd vdd PCH W=4u L=1u
MN2 b a 0 0 NCH W=2u L=1u
MP3 c b vdd vdd PCH W=4u L=1u
MN3 c b 0 0 NCH W=2u L=1u
CA a 0 50f
CB b 0 50f
CC c 0 50f
.model NCH NMOS(LEVEL=1 VTO=0.7 KP=100u LAMBDA=0.05)
.model PCH PMOS(LEVEL=1 VTO=-0.7 KP=50u LAMBDA=0.05)
.tran 10p 20n
.end
)";

// The time between the `first`-th and `last`-th upward crossings of `level`.
double rises(const Waveforms& w, const std::string& signal, double level, int first, int last) {
  const auto s = w.series(signal);
  std::vector<double> at;
  for (size_t k = 1; k < s.size(); ++k)
    if (s[k - 1] < level && s[k] >= level)
      at.push_back(w.t[k - 1] + (level - s[k - 1]) / (s[k] - s[k - 1]) * (w.t[k] - w.t[k - 1]));
  if (static_cast<int>(at.size()) < last) return 0;
  return at[static_cast<size_t>(last - 1)] - at[static_cast<size_t>(first - 1)];
}

TEST(UnstableStart, ARingOscillatorOscillatesAsInNgspice) {
  const Waveforms w = simulate(kRing);
  ASSERT_TRUE(w.result.ok()) << w.result.summary.message;
  EXPECT_NE(all_warnings(w).find("is an unstable equilibrium"), std::string::npos)
      << all_warnings(w);
  EXPECT_NEAR(rises(w, "v(a)", 1.65, 12, 14) / 2.5112e-9, 1.0, 0.02);
  double lo = 1e9, hi = -1e9;
  const auto a = w.series("v(a)");
  for (size_t k = 0; k < a.size(); ++k)
    if (w.t[k] >= 10e-9) lo = std::min(lo, a[k]), hi = std::max(hi, a[k]);
  EXPECT_NEAR(hi, 3.2204, 0.05);
  EXPECT_NEAR(lo, 0.0796, 0.05);
  // Kept on the equilibrium, the ring stays at 1.65 V (as the run did before the kick: its
  // steps, long against the growth's 0.24 ns, hold it within 0.1 mV).
  std::string keep = kRing;
  keep.insert(keep.find(".tran"), ".options unstableop=keep\n");
  const Waveforms still = simulate(keep);
  ASSERT_TRUE(still.result.ok()) << still.result.summary.message;
  const auto b = still.series("v(a)");
  const auto [mn, mx] = std::minmax_element(b.begin(), b.end());
  EXPECT_LT(*mx - *mn, 1e-3);
}

// A BJT astable (2N3904 vendor card): both transistors saturated at the operating point, μ =
// 5.7e7 /s. ngspice-39: 650.73 µs per cycle (3rd to 4th rise of v(c1) through 2.5 V). Started
// 1 mV off (an .ic), a located crossing met an LCP whose matrix is not a P-matrix (the
// capacitors weak against the transistors' positive feedback at that step) and the run stopped
// ("has no solution"); such a step is now tried shorter (theta_adaptive.cpp).
std::string astable(const std::string& extra) {
  return "BJT astable multivibrator 2N3904\nVCC vcc 0 5\nRC1 vcc c1 1k\nRC2 vcc c2 1k\n"
         "RB1 vcc b1 47k\nRB2 vcc b2 43k\nC1 c1 b2 10n\nC2 c2 b1 10n\nQ1 c1 b1 0 Q2N3904\n"
         "Q2 c2 b2 0 Q2N3904\n.model Q2N3904 NPN(IS=6.734f XTI=3 EG=1.11 VAF=74.03 BF=416.4 "
         "NE=1.259 ISE=6.734f IKF=66.78m XTB=1.5 BR=.7371 NC=2 ISC=0 IKR=0 RC=1 CJC=3.638p "
         "MJC=.3085 VJC=.75 FC=.5 CJE=4.493p MJE=.2593 VJE=.75 TR=239.5n TF=301.2p ITF=.4 VTF=4 "
         "XTF=2 RB=10)\n" +
         extra + ".tran 1u 5m\n.end\n";
}

TEST(UnstableStart, ABjtAstableOscillatesAsInNgspice) {
  const Waveforms w = simulate(astable(""));
  ASSERT_TRUE(w.result.ok()) << w.result.summary.message;
  EXPECT_NE(all_warnings(w).find("is an unstable equilibrium"), std::string::npos)
      << all_warnings(w);
  EXPECT_NEAR(rises(w, "v(c1)", 2.5, 3, 4) / 650.73e-6, 1.0, 0.02);
  const Waveforms nudged = simulate(astable(".ic v(b1)=0.707\n"));
  ASSERT_TRUE(nudged.result.ok()) << nudged.result.summary.message;
  EXPECT_NEAR(rises(nudged, "v(c1)", 2.5, 3, 4) / 650.73e-6, 1.0, 0.02);
}

}  // namespace
}  // namespace nsspice::testing

namespace nsspice::testing {
namespace {

// A relaxation oscillator of a hysteretic switch (555-like): with the switch on, the capacitor
// node sits at 5·1k/(10k + 1k + 1) = 0.455 V, below the turn-off level 2.5 − 0.8 V; off, at 5 V,
// above the turn-on level 3.3 V. No DC state exists; the operating point's rounds end with the
// switch still flipping, and the run (and .op) say so with both controls. With a 100 kΩ discharge
// resistor the switch on holds (4.55 V > 1.7 V): nothing to say.
std::string relaxation(const std::string& r2) {
  return "relaxation oscillator\nV1 vcc 0 5\nR1 vcc c 10k\nC1 c 0 100n\nS1 c d c 0 SW\nR2 d 0 " +
         r2 + "\n.model SW SW(VT=2.5 VH=0.8 RON=1 ROFF=1e9)\n.tran 1u 5m\n.end\n";
}

TEST(UnsettledSwitch, ARelaxationOscillatorsSwitchHasNoDcStateAndTheRunSaysSo) {
  const Waveforms w = simulate(relaxation("1k"));
  ASSERT_TRUE(w.result.ok()) << w.result.summary.message;
  const std::string all = fmt::format("{}", fmt::join(w.result.warnings, "\n"));
  EXPECT_NE(all.find("switch 's1' has no consistent state at the DC operating point: on, its "
                     "control is 0.455 V, below its turn-off level 1.7 V; off, 5 V, above its "
                     "turn-on level 3.3 V"),
            std::string::npos)
      << all;
  circuit::StaticSolution point;
  const circuit::AnalysisResult op = circuit::operating_point(w.circuit, w.assembled, point);
  ASSERT_TRUE(op.ok()) << op.summary.message;
  const std::string notes = fmt::format("{}", fmt::join(op.notes, "\n"));
  EXPECT_NE(notes.find("(a relaxation oscillator: no DC state exists); the point below is the one "
                       "solved with it on"),
            std::string::npos)
      << notes;
  const Waveforms held = simulate(relaxation("100k"));
  ASSERT_TRUE(held.result.ok()) << held.result.summary.message;
  for (const auto& s : held.result.warnings) EXPECT_EQ(s.find("switch 's1'"), std::string::npos);
}

}  // namespace
}  // namespace nsspice::testing
