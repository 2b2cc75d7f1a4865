// SPICE and LTspice diode model cards (docs/devices.md, "SPICE diode models"): what each card
// becomes, its errors, the LTspice idealized diode against its closed form, and the static
// characteristic of a converted SPICE diode against the Shockley law within the tolerance.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "circuit/elaborate.hpp"
#include "circuit/junction_charge.hpp"
#include "helpers.hpp"
#include "netlist/parse.hpp"

namespace nsspice::testing {
namespace {

const circuit::Diode* diode(const Waveforms& r, const std::string& name) {
  for (const auto& d : r.circuit.devices)
    if (const auto* p = std::get_if<circuit::Diode>(&d); p && p->name == name) return p;
  return nullptr;
}

// The device of kind T named `name` (nullptr if none).
template <typename T>
const T* find_device(const circuit::Circuit& c, const std::string& name) {
  for (const auto& d : c.devices)
    if (const auto* p = std::get_if<T>(&d); p && p->name == name) return p;
  return nullptr;
}
const circuit::Capacitor* capacitor(const circuit::Circuit& c, const std::string& name) {
  return find_device<circuit::Capacitor>(c, name);
}

const std::string kSweep = "V1 a 0 PWL(0 -20 1 2)\nD1 a b DM\nR1 b 0 10\n.tran 1m 1\n";

TEST(SpiceDiodeModels, NegativeIsAndZeroNAreClearErrors) {
  const std::string d = elaboration_errors("t\n" + kSweep + ".model DM D(IS=-1n N=0)\n.end\n");
  EXPECT_NE(d.find("t.cir:6:16: error: model parameter 'IS' must be a number > 0, got '-1n'"),
            std::string::npos)
      << d;
  EXPECT_NE(d.find("t.cir:6:22: error: model parameter 'N' must be a number > 0, got '0'"),
            std::string::npos)
      << d;
}

TEST(SpiceMosModels, UnknownLevelIsAClearError) {
  const std::string d = elaboration_errors(
      "t\nV1 d 0 5\nM1 d d 0 0 NM\n.model NM NMOS(LEVEL=3 VTO=1 KP=1m)\n.tran 1u 1m\n.end\n");
  EXPECT_NE(d.find("t.cir:4:22: error: unknown MOS LEVEL 3 in model 'nm': nsspice has the "
                   "level-1 square law (Shichman–Hodges) as a PWL model only; use LEVEL=1"),
            std::string::npos)
      << d;
}

// Level 1 with RD, RS and no SEGMENTS: knots from pwltol, RD/RS as resistors. A diode-connected
// NMOS fed by a current source: I = K/2 (V_gs − VT)² with the gate on the outer drain node,
// V_gs = v(d) − RS·I (RD carries I but is not in the gate loop), so v(d) = VT + √(2I/K) + RS·I
// within the gate-voltage tolerance.
TEST(SpiceMosModels, LevelOneCardMeetsTheSquareLawWithinTheTolerance) {
  const Waveforms r = simulate_fixed(
      "t\nI1 0 d PWL(0 0 1 10m)\nM1 d d 0 0 NM W=10u L=1u\n"
      ".model NM NMOS(LEVEL=1 VTO=0.7 KP=100u RD=5 RS=3 LAMBDA=0.01)\n.tran 1m 1\n.end\n");
  ASSERT_TRUE(r.result.ok()) << r.diagnostics << r.result.summary.message;
  // LAMBDA at the initial point, where the channel is off (I = 0): not applied, and said so.
  ASSERT_FALSE(r.circuit.bias_notes.empty());
  EXPECT_NE(r.circuit.bias_notes[0].find("m1 LAMBDA 0.01 /V: the channel is off at the initial "
                                         "point, LAMBDA is not applied"),
            std::string::npos)
      << r.circuit.bias_notes[0];
  const auto v = r.series("v(d)");
  const double k = 100e-6 * 10;
  int checked = 0;
  for (size_t n = 0; n < r.t.size(); ++n) {
    const double id = 10e-3 * r.t[n];
    if (id < 1e-5) continue;
    const double x = std::sqrt(2 * id / k), exact = 0.7 + x + 3 * id;
    EXPECT_NEAR(v[n], exact, 0.01 * std::max(1.0, 0.7 + x) + 1e-9) << "I = " << id;
    ++checked;
  }
  EXPECT_GT(checked, 900);
  ASSERT_EQ(r.circuit.conversions.size(), 2u);  // the card and its bulk diodes (nm.bulk)
  EXPECT_NE(r.circuit.conversions[0].summary.find("nm: level-1 NMOS square law"), std::string::npos)
      << r.circuit.conversions[0].summary;
  EXPECT_NE(r.circuit.conversions[1].summary.find("nm.bulk: "), std::string::npos)
      << r.circuit.conversions[1].summary;
}

TEST(SpiceDiodeModels, MixingIdealAndSpiceParametersIsAnError) {
  const std::string d = elaboration_errors("t\n" + kSweep + ".model DM D(VF=0.7 IS=1n)\n.end\n");
  EXPECT_NE(d.find("t.cir:6:20: error: model 'dm' mixes SPICE level-1 parameters (IS) with "
                   "ideal-diode parameters (VF)"),
            std::string::npos)
      << d << "at the later parameter";
}

// An instance's AREA (positional or AREA=) and M (docs/devices.md, "Area and M"): the junction of
// AREA·M devices, as ngspice's level-1 diode scales it: IS, ISR, IKF, CJO times AREA·M, RS over
// it, IBV times M only. The instance runs exactly as a card scaled by hand.
TEST(SpiceDiodeModels, AreaAndMScaleTheJunctionAsACardScaledByHand) {
  const std::string circuit =
      "V1 in 0 SIN(0 10 1k)\nR1 in a 10\nD1 a out {}\nC1 out 0 10u\nRL out 0 100\n"
      "V2 r 0 -20\nD2 r 0 {}\n.tran 10u 3m\n"
      ".model DX D(IS=1e-14 N=1.2 RS=0.5 CJO=10p BV=15 IBV=1m ISR=1n IKF=0.1 TT=5n)\n"
      ".model DY D(IS=8e-14 N=1.2 RS=0.0625 CJO=80p BV=15 IBV=2m ISR=8n IKF=0.8 TT=5n)\n.end\n";
  const Waveforms scaled =
      simulate_fixed("t\n" + fmt::format(fmt::runtime(circuit), "DX 4 m=2", "DX AREA=4 M=2"));
  const Waveforms hand = simulate_fixed("t\n" + fmt::format(fmt::runtime(circuit), "DY", "DY"));
  ASSERT_TRUE(scaled.result.ok()) << scaled.diagnostics << scaled.result.summary.message;
  ASSERT_TRUE(hand.result.ok()) << hand.diagnostics;
  EXPECT_EQ(scaled.diagnostics.find("ignored"), std::string::npos) << scaled.diagnostics;
  expect_same_series(scaled, hand, {"v(out)", "i(d1)", "i(v2)"}, 1e-9);
  // One conversion, of the scaled copy only (the card itself is used by no instance as written).
  ASSERT_EQ(scaled.circuit.conversions.size(), 1u);
  const std::string& summary = scaled.circuit.conversions[0].summary;
  EXPECT_EQ(summary.rfind("dx(area=4,m=2): ", 0), 0u) << summary;
  EXPECT_NE(summary.find("the card's IS, ISR, IKF, CJO ×8 and RS ÷8 for the instance's AREA·M, "
                         "IBV ×2 (M)"),
            std::string::npos)
      << summary;
}

// ngspice-39 on the same cards at a DC bias in breakdown (−20 V, BV 15 V): AREA 8 gives
// 75.3526 A and M 8 gives 76.2085 A; AREA 4 with M 2 gives 75.6379 A. The difference is IBV: M
// scales it, AREA does not (ngspice's cbv = M·IBV), a factor 8 on the breakdown current, Vt·ln 8
// = 54 mV on the junction. The stated bound of the one breakdown segment is 132 mV (2 A through
// RS/8); the runs agree with ngspice to 1e-4 A, checked here to 0.05 A, so that the two
// scalings (0.86 A apart) are told apart.
TEST(SpiceDiodeModels, AreaAndMInBreakdownMatchNgspice) {
  const Waveforms r = simulate_fixed(
      "t\nV3 c 0 -20\nD3 c 0 DX area=4 m=2\nV5 f 0 -20\nD5 f 0 DX 8\nV6 g 0 -20\n"
      "D6 g 0 DX m=8\n.model DX D(IS=1e-14 N=1 RS=0.5 BV=15 IBV=1m)\n.tran 1u 10u\n.end\n");
  ASSERT_TRUE(r.result.ok()) << r.diagnostics << r.result.summary.message;
  const size_t last = r.t.size() - 1;
  EXPECT_NEAR(r.at("i(v3)", last), 75.6379, 0.05);
  EXPECT_NEAR(r.at("i(v5)", last), 75.3526, 0.05);
  EXPECT_NEAR(r.at("i(v6)", last), 76.2085, 0.05);
  EXPECT_NEAR(r.at("i(v6)", last) - r.at("i(v5)", last), 76.2085 - 75.3526, 0.05);
}

// A model that is not a SPICE junction: M is M devices in parallel (RON/M), an AREA means nothing
// and is reported as ignored; an AREA or M that is not > 0 is an error naming the diode.
TEST(SpiceDiodeModels, MOfAnIdealizedDiodeIsDevicesInParallel) {
  const Waveforms r = simulate_fixed(
      "t\nV1 in 0 1\nD1 in out DI 2 m=2\nRL out 0 1\n.model DI D(Ron=1 Vfwd=0.5)\n"
      ".tran 1m 2m\n.end\n");
  ASSERT_TRUE(r.result.ok()) << r.diagnostics << r.result.summary.message;
  EXPECT_NE(r.diagnostics.find("warning: area 2 of diode 'd1' is ignored: model 'di' is not a "
                               "SPICE junction model"),
            std::string::npos)
      << r.diagnostics;
  // (1 − 0.5) V over RON/2 + 1 Ω = 1.5 Ω.
  EXPECT_NEAR(r.at("v(out)", r.t.size() - 1), 0.5 / 1.5, 1e-9);
  const std::string d =
      elaboration_errors("t\nV1 a 0 1\nD1 a 0 DX area=0\n.model DX D(IS=1n)\n.end\n");
  EXPECT_NE(d.find("t.cir:3:1: error: diode 'd1' needs an area > 0, got 0"), std::string::npos)
      << d;
}

// The bias knots' iteration (pwl_bias_knots.cpp) goes back to the last fits that had an initial
// point when one fails. When the first one failed (here a node pair with no DC path), "the last
// fits" were none: every junction was left without segments, and the circuit's later solves
// failed for that reason instead of their own (ngspice's class-AB example 100W_wingspread.sp:
// ".dc vin -20 20 0.1" stopped at its first point, "singular in every mode tried"; it now runs
// its 401 points, within 0.4 % of ngspice-39 at ±10 V and ±20 V). The junctions keep their
// chord fits.
TEST(SpiceDiodeModels, AFailedFirstInitialPointKeepsTheChordFits) {
  netlist::SourceManager sources;
  netlist::Diagnostics diags;
  const netlist::Netlist tree = netlist::parse_string(
      "t\nV1 a 0 SIN(0 1 1k)\nR1 a b 1k\nD1 b 0 DX\nC1 c d 1n\nC2 d 0 1n\n"
      ".model DX D(IS=1e-14 N=1 RS=1)\n.tran 1u 1m\n.end\n",
      "t.cir", sources, diags);
  const circuit::Circuit c = circuit::elaborate(tree, diags);
  ASSERT_FALSE(diags.has_errors()) << diags.format(sources);
  const auto* d = find_device<circuit::Diode>(c, "d1");
  ASSERT_NE(d, nullptr);
  ASSERT_EQ(c.conversions.size(), 1u);
  EXPECT_EQ(d->model.forward.size(), c.conversions[0].forward_fit.curve.segments.size());
  EXPECT_EQ(d->model.forward.size(), 6u);
}

// A mains transformer whose floating secondary feeds a bridge of SPICE diodes. Between the
// mains peaks all four diodes are off and the secondary floats (no DC path: ngspice-39 stops with
// "timestep too small, trouble with node s1"; GMIN holds it for a 100 MΩ to ground). At the
// operating point every current is 0 and the bridge sits at a segment's knot: the mode check
// measured a segment's λ of −7e-16 A against the KCL rows it enters, where nothing flows, and
// called it a violation ("the DC operating point could not be found", with or without UIC). A
// segment's λ is now measured against its own row (ModeMlcp::check). Against ngspice with the
// 100 MΩ: 13.58691 V (stored; ngspice-39 on the same deck with `Rb s2 0 100meg`).
TEST(SpiceDiodeModels, FloatingSecondaryIntoABridgeOfSpiceDiodes) {
  for (const char* uic : {"", " UIC"}) {
    const Waveforms r = simulate(
        fmt::format(
            "t\nVac in 0 SIN(0 325 50)\nRp in ac 0.5\nLp ac 0 1\nLs s1 s2 2.5m\nK1 Lp Ls 0.999\n"
            "D1 s1 pos dbr\nD2 s2 pos dbr\nD3 0 s1 dbr\nD4 0 s2 dbr\nC1 pos 0 1000u\nRl pos 0 50\n"
            ".model dbr D(IS=1e-8 N=1.8 RS=5m)\n.tran 50u 100m 60m{}\n.end\n",
            uic),
        {}, true);
    ASSERT_TRUE(r.result.ok()) << uic << ": " << r.result.summary.message;
    const auto v = r.series("v(pos)");
    double area = 0, span = 0;
    for (size_t k = 1; k < r.t.size(); ++k) {
      if (r.t[k - 1] < 60e-3 - 1e-12) continue;
      area += 0.5 * (v[k] + v[k - 1]) * (r.t[k] - r.t[k - 1]);
      span += r.t[k] - r.t[k - 1];
    }
    ASSERT_NEAR(span, 40e-3, 1e-9);
    EXPECT_NEAR(area / span, 13.58691, 0.003 * 13.58691) << uic;
  }
}

// SPICE's GMIN across each junction (.options gmin, 1e-12 S): two equal diodes blocking 48 V in
// series share it equally, as in ngspice (24 V); without it nothing fixed their midpoint and
// the operating point took a corner above the supply (48.36 V).
TEST(SpiceDiodeModels, GminSetsANodeHeldOnlyByBlockingJunctions) {
  const Waveforms r = simulate(
      "t\nV1 p 0 48\nD1 mid p dm\nD2 0 mid dm\n.model dm D(IS=1p)\n.tran 1u 10u\n.end\n", {}, true);
  ASSERT_TRUE(r.result.ok()) << r.diagnostics << r.result.summary.message;
  for (double v : r.series("v(mid)")) EXPECT_NEAR(v, 24.0, 1e-6);
  for (double i : r.series("i(d1)"))
    EXPECT_NEAR(i, -24e-12, 1e-17);  // GMIN·v (ngspice: −25 pA with −IS)
}

// A current source into a SPICE diode whose node has no other conductance than GMIN or a 1 TΩ
// resistor: the operating point is the Shockley voltage (the mode check's scale of the
// multipliers' share in volts is taken from the segments' conductances too: with W's alone,
// here 1e-12 S, a wrong mode with every segment on passed at 0.94 V).
TEST(SpiceDiodeModels, ACurrentSourceIntoAJunctionWithOnlyTinyConductances) {
  for (const char* across : {"", "R1 a 0 1T\n.options gmin=0\n"}) {
    const Waveforms r = simulate(fmt::format("t\nI1 0 a PWL(0 1m 1m 5)\nD1 a 0 dp\n{}"
                                             ".model dp D(IS=2.55n RS=0.042 N=1.75)\n"
                                             ".tran 1u 1m 0 1u\n.end\n",
                                             across),
                                 {}, true);
    ASSERT_TRUE(r.result.ok()) << r.diagnostics << r.result.summary.message;
    const double vt = 1.380649e-23 * 300.15 / 1.602176634e-19;
    const double shockley = 1.75 * vt * std::log(1e-3 / 2.55e-9 + 1) + 1e-3 * 0.042;
    EXPECT_NEAR(r.series("v(a)").front(), shockley, 0.01) << across;  // pwltol 10 mV
    EXPECT_NEAR(r.series("i(d1)").front(), 1e-3, 1e-9) << across;
  }
}

TEST(SpiceDiodeModels, BareModelStaysIdeal) {
  const Waveforms r = simulate_fixed("t\n" + kSweep + ".model DM D\n.end\n");
  ASSERT_TRUE(r.result.ok()) << r.diagnostics << r.result.summary.message;
  const auto* d = diode(r, "d1");
  ASSERT_NE(d, nullptr);
  EXPECT_FALSE(d->model.spice);
  EXPECT_TRUE(d->model.forward.empty());
  ASSERT_EQ(r.circuit.conversions.size(), 1u);
  EXPECT_EQ(r.circuit.conversions[0].kind, "ideal");
  EXPECT_EQ(static_cast<int>(r.assembled.pair_names.size()), 1);
}

TEST(SpiceDiodeModels, SpiceCardBecomesPairsAndAJunctionCapacitor) {
  const Waveforms r = simulate_fixed(
      "t\n" + kSweep +
      ".options pwlimax=2\n"
      ".model DM D(IS=2.52n N=1.752 RS=0.568 BV=10 IBV=100u CJO=4p M=0.4 KF=0 AF=1)\n.end\n");
  ASSERT_TRUE(r.result.ok()) << r.diagnostics << r.result.summary.message;
  EXPECT_NE(r.diagnostics.find("parameters KF, AF are ignored (they have no PWL meaning"),
            std::string::npos)
      << r.diagnostics;
  const auto* d = diode(r, "d1");
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(d->model.spice);
  EXPECT_GE(d->model.forward.size(), 4u);
  EXPECT_GE(d->model.reverse.size(), 1u);
  // One pair per segment, and one for the kink of the depletion charge at 0 V.
  EXPECT_EQ(static_cast<int>(r.assembled.pair_names.size()),
            static_cast<int>(d->model.forward.size() + d->model.reverse.size()) + 1);
  EXPECT_EQ(r.assembled.pair_roles.back(), "CJ");
  // CJO as a two-slope PWL charge; below 0 V the charge-equivalent capacitance over the reverse
  // swing [−V, 0], V = 20 V (the source's peak) capped by BV = 10 V: with
  // Q(v) = VJ·CJO·(1 − (1 − v/VJ)^(1−M))/(1 − M), VJ = 1, M = 0.4: C = 4 pF·(11^0.6 − 1)/0.6/10 V.
  const auto* cj = capacitor(r.circuit, "d1.cj");
  ASSERT_NE(cj, nullptr);
  EXPECT_NEAR(cj->c, 4e-12 * (std::pow(11.0, 0.6) - 1) / 0.6 / 10, 1e-18);
  ASSERT_EQ(r.circuit.conversions.size(), 1u);
  const auto& conv = r.circuit.conversions[0];
  EXPECT_DOUBLE_EQ(conv.forward_fit.imax, 2.0);
  EXPECT_DOUBLE_EQ(conv.forward_fit.imin, 2e-6);
  EXPECT_NE(conv.summary.find("dm: "), std::string::npos) << conv.summary;
  EXPECT_NE(conv.summary.find("segments over 2 µA–2 A"), std::string::npos) << conv.summary;

  // The static characteristic: at every point with a current in [imin, imax] the diode voltage
  // v(a) − v(b) is the Shockley + RS voltage of that current within tol = 10 mV·max(1, v).
  const auto va = r.series("v(a)"), vb = r.series("v(b)"), id = r.series("i(d1)");
  int checked = 0;
  for (size_t k = 0; k < r.t.size(); ++k) {
    const double i = id[k], v = va[k] - vb[k];
    if (i >= conv.forward_fit.imin) {
      const double exact = conv.forward.voltage(i);
      EXPECT_LE(std::abs(v - exact), 0.01 * std::max(1.0, exact) * (1 + 1e-6)) << "i = " << i;
      ++checked;
    } else if (-i >= conv.reverse_fit.imin) {
      const double exact = conv.reverse->voltage(-i);
      EXPECT_LE(std::abs(-v - exact), 0.01 * std::max(1.0, exact) * (1 + 1e-6)) << "i = " << i;
      ++checked;
    }
  }
  EXPECT_GT(checked, 200);
}

// A run whose diode current leaves the fitted range says so, with the pwlimax that covers it.
TEST(SpiceDiodeModels, CurrentAboveTheFittedRangeIsWarned) {
  const std::string card = ".model DM D(IS=2.52n N=1.752 RS=0.568 BV=10 IBV=100u)\n.end\n";
  const Waveforms inside = simulate_fixed("t\n" + kSweep + card);
  ASSERT_TRUE(inside.result.ok()) << inside.result.summary.message;
  EXPECT_TRUE(inside.result.warnings.empty()) << inside.result.warnings.front();
  const Waveforms above = simulate_fixed("t\n" + kSweep + ".options pwlimax=0.1\n" + card);
  ASSERT_TRUE(above.result.ok()) << above.result.summary.message;
  const auto id = above.series("i(d1)");
  const double peak = -*std::min_element(id.begin(), id.end());
  ASSERT_EQ(above.result.warnings.size(), 2u) << "the forward peak is ~0.11 A, the reverse ~1 A";
  const std::string& w = above.result.warnings[1];
  EXPECT_NE(w.find(fmt::format("d1 (model 'dm'): the breakdown current reached {:.3g} A, above "
                               "the range of its PWL fit (imax = 0.1 A)",
                               peak)),
            std::string::npos)
      << w;
  EXPECT_NE(above.result.warnings[0].find("the forward current reached"), std::string::npos);
  EXPECT_GT(peak, 0.1);
  // Each range left, for the run command's refit: the range that covers it (twice the peak,
  // from the fit's own imin), and that the range left was the user's (.options pwlimax).
  ASSERT_EQ(above.result.range_misses.size(), 2u);
  const circuit::PwlRangeMiss& miss = above.result.range_misses[1];
  EXPECT_EQ(miss.model, "dm");
  EXPECT_EQ(miss.warning, w);
  EXPECT_TRUE(miss.user_range);
  // i(d1) holds GMIN·v besides the junction's current (≈ 2e-11 A of 0.73 A here).
  EXPECT_NEAR(miss.imax, 2 * peak, 1e-9 * peak);
  EXPECT_NEAR(miss.imin, 0.1 * 1e-6, 1e-20);
  EXPECT_NE(miss.met.find("d1's breakdown current reached"), std::string::npos) << miss.met;
}

// Fitted again over a given range (a refit: circuit::PwlSettings::refit, what the run command
// does when a run leaves the estimated range): the fit spans it, whatever .options pwlimax says,
// the conversion summary says why, and the range checks of a run inside it find nothing.
TEST(SpiceDiodeModels, ARefitSetsTheModelsRange) {
  const std::string text = "t\n" + kSweep + ".options pwlimax=0.1\n" +
                           ".model DM D(IS=2.52n N=1.752 RS=0.568 BV=10 IBV=100u)\n.end\n";
  netlist::SourceManager sm;
  netlist::Diagnostics diags;
  const auto tree = netlist::parse_string(text, "t.cir", sm, diags);
  std::map<std::string, circuit::PwlRefit> refit;
  refit["dm"] = circuit::PwlRefit{1e-7, 4.0, "run 1: the test's reason", {}, {}};
  const circuit::Circuit c = circuit::elaborate(tree, diags, circuit::ModelCards::kUsed, refit);
  ASSERT_FALSE(diags.has_errors()) << diags.format(sm);
  ASSERT_EQ(c.conversions.size(), 1u);
  const circuit::DiodeConversion& conv = c.conversions[0];
  EXPECT_EQ(conv.forward_fit.imin, 1e-7);
  EXPECT_EQ(conv.forward_fit.imax, 4.0);
  EXPECT_EQ(conv.reverse_fit.imax, 4.0);
  EXPECT_NE(conv.summary.find("range 100 nA–4 A from a refit: run 1: the test's reason"),
            std::string::npos)
      << conv.summary;
  const circuit::Assembled a = circuit::assemble(c);
  circuit::TransientOptions opt;
  opt.adaptive = false;
  const auto result = circuit::run_transient(c, a, opt, {});
  ASSERT_TRUE(result.ok()) << result.summary.message;
  EXPECT_TRUE(result.range_misses.empty()) << result.range_misses.front().warning;
}

// A diode straight across a source (as in ngspice's VDMOS-DIO.sp example: a ramp to 0.5 V, and
// a -20 V bias elsewhere): with a capacitor in the circuit R_min = 0, so imax = 2·ΣV/RS is
// 11.6 kA and imin = imax·1e-6 = 11.6 mA, above every current of the run; the fit's first
// threshold is above 0.5 V and the PWL diode never conducts, where the Shockley law gives
// 4.97 mA at 0.5 V. The run says so, with the pwlimin that covers that current; with it, the
// final current is within e^(±PWLTOL/(N·Vt)) = e^(±0.247) of IS·(e^(v/(N·Vt)) − 1). Without the
// bias (ΣV = 2 V: imin = 1.05 mA) the current is inside the range and nothing is said.
TEST(SpiceDiodeModels, ADiodeWorkingBelowTheFittedRangeIsWarned) {
  const std::string body =
      "VA a 0 PWL(0 -2 2.5 0.5)\nD1 a 0 DIO\nC1 a 0 1n\n"
      ".model DIO D(IS=2.13E-08 N=1.564 RS=0.0038)\n.tran 10m 2.5\n";
  const std::string bias = "VB b 0 -20\nRB b 0 1k\n";
  const Waveforms inside = simulate_fixed("t\n" + body + ".end\n");
  ASSERT_TRUE(inside.result.ok()) << inside.result.summary.message;
  EXPECT_TRUE(inside.result.warnings.empty()) << inside.result.warnings.front();
  const Waveforms below = simulate_fixed("t\n" + body + bias + ".end\n");
  ASSERT_TRUE(below.result.ok()) << below.result.summary.message;
  ASSERT_EQ(below.result.warnings.size(), 1u);
  const std::string& w = below.result.warnings[0];
  ASSERT_EQ(below.result.range_misses.size(), 1u);
  const circuit::PwlRangeMiss& miss = below.result.range_misses[0];
  EXPECT_FALSE(miss.user_range);                              // estimated: the run command refits
  EXPECT_NEAR(miss.imax, 2 * 22 / 0.0038, 1e-9 * miss.imax);  // the fit's own imax kept
  EXPECT_NE(w.find("d1 (model 'dio'): at its largest forward voltage, 0.5 V, the PWL conducts "
                   "0 A, below the range of its fit (imin = 11.6 mA), and the SPICE model 4.97 mA"),
            std::string::npos)
      << w;
  const auto pos = w.find("pwlimin=");
  ASSERT_NE(pos, std::string::npos) << w;
  const std::string pwlimin = w.substr(pos + 8, w.find(' ', pos) - pos - 8);
  EXPECT_NEAR(miss.imin, std::stod(pwlimin), 0.05 * miss.imin);  // printed to 2 digits
  const double vt = 1.380649e-23 * 300.15 / 1.602176634e-19;
  const double exact = 2.13e-8 * std::expm1(0.5 / (1.564 * vt));
  EXPECT_LT(below.series("i(d1)").back(), 0.01 * exact);  // the PWL diode never conducted
  const Waveforms covered =
      simulate_fixed("t\n" + body + bias + ".options pwlimin=" + pwlimin + "\n.end\n");
  ASSERT_TRUE(covered.result.ok()) << covered.result.summary.message;
  EXPECT_TRUE(covered.result.warnings.empty()) << covered.result.warnings.front();
  const double i_end = covered.series("i(d1)").back();
  EXPECT_GT(i_end, exact * std::exp(-0.01 / (1.564 * vt)));
  EXPECT_LT(i_end, exact * std::exp(0.01 / (1.564 * vt)));
}

// A junction capacitance behind a large RS (ngspice's ro_11_vdmos.sp disables its VDMOS body
// diodes with RB = 10 MΩ, CJO = 1 nF: with the capacitance across the terminals its ring
// oscillator did not oscillate). With RS·CJO ≥ 0.1·TSTEP, RS is a resistor "d1.rs" to the
// internal node "d1.j" and the junction with its charges sits behind it, as in SPICE. Here a
// reverse step of 1 V charges that capacitance (linear over the reverse swing: c = C_lo) through
// RS: |i(v1)| = (1 V/RS)·e^(−(t − t0)/(RS·C_lo)), the diode itself blocking. Across the terminals
// the source would charge it at once and no current would flow after the step.
TEST(SpiceDiodeModels, ALargeRsPutsTheJunctionChargeBehindIt) {
  const Waveforms r = simulate_fixed(
      "t\nV1 a 0 PULSE(0 -1 1u 1n 1n 1 2)\nD1 a 0 DBIG\n"
      ".model DBIG D(IS=1e-14 RS=1k CJO=1n VJ=0.8 M=0.5)\n.tran 10n 5u\n.end\n");
  ASSERT_TRUE(r.result.ok()) << r.result.summary.message;
  const auto* rs = find_device<circuit::Resistor>(r.circuit, "d1.rs");
  ASSERT_NE(rs, nullptr);
  EXPECT_DOUBLE_EQ(rs->r, 1e3);
  const circuit::Capacitor* cj = capacitor(r.circuit, "d1.cj");
  ASSERT_NE(cj, nullptr);
  EXPECT_EQ(r.circuit.nodes[static_cast<size_t>(cj->a)], "d1.j");
  const double tau = 1e3 * cj->c;
  EXPECT_GT(tau, 0.5e-6);  // 0.8 µs: C_lo = 0.8 nF over 0…−1 V
  const auto iv = r.series("i(v1)");
  int checked = 0;
  for (size_t p = 0; p < r.t.size(); ++p) {
    if (r.t[p] < 1.1e-6) continue;
    const double exact = 1e-3 * std::exp(-(r.t[p] - 1.0005e-6) / tau);
    EXPECT_NEAR(std::abs(iv[p]), exact, 2e-3 * 1e-3) << "t = " << r.t[p];
    ++checked;
  }
  EXPECT_GT(checked, 300);
}

// A current source charging a reverse-biased junction: q(0) − q(−v) = I·t, so SPICE's depletion
// charge gives the time to reach v in closed form, t(v) = (Q(0) − Q(−v))/I. The default
// two-slope charge is one chord over the reverse swing [−20 V, 0] (the 20 V source): exact at
// −20 V, 60 % early at −1 V (31 µs against 78 µs; ngspice 78.17 µs, the closed form 78.17 µs).
// With .options pwlqtol=0.02 the charge has 6 knots below 0 within 2 % of the charge moved
// (floored at CJO·1 V), and every crossing time is within that bound of the closed form.
TEST(SpiceDiodeModels, ChargeToleranceFollowsTheDepletionCharge) {
  const std::string deck =
      "t\nI1 0 k PULSE(0 1u 0 1n 1n 1 2)\nD1 0 k DJ\nRL k 0 1e12\nVS s 0 20\nRS s 0 1k\n"
      ".model DJ D(IS=1e-14 CJO=100p VJ=0.7 M=0.5)\n.tran 1u 640u\n";
  const circuit::DepletionCharge q{100e-12, 0.7, 0.5, 0.5};
  const auto crossing = [](const Waveforms& r, double v) {
    const auto vk = r.series("v(k)");
    for (size_t p = 1; p < vk.size(); ++p)
      if (vk[p - 1] < v && vk[p] >= v)
        return r.t[p - 1] + (v - vk[p - 1]) / (vk[p] - vk[p - 1]) * (r.t[p] - r.t[p - 1]);
    return -1.0;
  };
  const Waveforms two = simulate(deck + ".end\n");
  const Waveforms fine = simulate(deck + ".options pwlqtol=0.02\n.end\n");
  ASSERT_TRUE(two.result.ok()) << two.result.summary.message;
  ASSERT_TRUE(fine.result.ok()) << fine.result.summary.message;
  const auto* d = diode(fine, "d1");
  ASSERT_NE(d, nullptr);
  EXPECT_GE(d->model.cj.knots.size(), 4u) << "knots below 0 besides the forward one";
  EXPECT_NE(fine.circuit.conversions[0].summary.find("(charge within 2 %)"), std::string::npos)
      << fine.circuit.conversions[0].summary;
  double worst_two = 0;
  for (const double v : {1.0, 3.0, 6.0, 10.0, 15.0, 19.0}) {
    const double exact = (q.charge(0) - q.charge(-v)) / 1e-6 + 1e-9;
    const double bound =
        0.02 * std::max(1.0, q.capacitance(0) * 1.0 / (q.charge(0) - q.charge(-v)));
    EXPECT_NEAR(crossing(fine, v) / exact, 1.0, bound + 2e-3) << "v(k) = " << v;
    worst_two = std::max(worst_two, std::abs(crossing(two, v) / exact - 1));
  }
  EXPECT_GT(worst_two, 0.3) << "the single chord is far off somewhere (60 % at 1 V)";
}

// The after-run junction charge check (circuit/src/junction_charge_check.hpp). An LC ring on a
// junction (examples/spice_junction_ring.cir: 5 V through 100 µH, CJO 1 nF) swings to −10 V, twice
// the −5…0 V its two-slope charge was fitted over, and nothing else conducts: a miss with the
// voltages met and a warning with the numbers. The VDMOS buck's body diode has its charge up to 65
// % off SPICE's over its swing (its two slopes fitted over −34…0 V, it swings to −25 V), an error
// current of 262 µA on average beside the freewheeling diode's 2.1 A (1.2e-4 of it): no miss, no
// warning.
TEST(SpiceDiodeModels, JunctionChargeCheckFlagsOnlyACharge) {
  const Waveforms ring = simulate(read_example("spice_junction_ring.cir"));
  ASSERT_TRUE(ring.result.ok()) << ring.result.summary.message;
  ASSERT_EQ(ring.result.charge_misses.size(), 1u);
  const auto& miss = ring.result.charge_misses[0];
  EXPECT_EQ(miss.device, "d1");
  EXPECT_EQ(miss.model, "dv");
  EXPECT_NEAR(miss.lowest, -9.97, 0.05);
  const std::string all = fmt::format("{}", fmt::join(ring.result.warnings, "\n"));
  EXPECT_NE(all.find("d1 (model 'dv'): its PWL junction charge (519 pF below 0 V) was up to 30 % "
                     "off SPICE's"),
            std::string::npos)
      << all;

  const Waveforms buck = simulate(read_example("spice_vdmos_buck.cir"));
  ASSERT_TRUE(buck.result.ok()) << buck.result.summary.message;
  EXPECT_TRUE(buck.result.charge_misses.empty()) << buck.result.charge_misses[0].met;
}

TEST(SpiceDiodeModels, IdealizeGivesTodaysIdealDiode) {
  const std::string card = ".model DM D(IS=2.52n N=1.752 RS=0.568 CJO=4p)\n.end\n";
  const Waveforms r = simulate_fixed("t\n" + kSweep + ".options idealize\n" + card);
  ASSERT_TRUE(r.result.ok()) << r.diagnostics << r.result.summary.message;
  EXPECT_TRUE(diode(r, "d1")->model.forward.empty());
  EXPECT_EQ(capacitor(r.circuit, "d1.cj"), nullptr);
  EXPECT_EQ(r.circuit.conversions[0].kind, "idealized (IDEALIZE)");
  const auto vb = r.series("v(b)"), va = r.series("v(a)");
  EXPECT_NEAR(vb.back(), va.back(), 1e-12) << "the ideal diode drops nothing";

  // --ideal after the fact: the same circuit.
  Waveforms converted = simulate_fixed("t\n" + kSweep + card);
  ASSERT_NE(capacitor(converted.circuit, "d1.cj"), nullptr);
  circuit::idealize_diodes(converted.circuit);
  EXPECT_EQ(capacitor(converted.circuit, "d1.cj"), nullptr);
  EXPECT_TRUE(diode(converted, "d1")->model.forward.empty());
  EXPECT_EQ(converted.circuit.conversions[0].kind, "idealized (IDEALIZE)");

  // A forward-biased diode has a bias knot; --ideal drops its note with its segments (the report
  // said "idealized" and then gave the knot's tangent resistance).
  Waveforms biased = simulate_fixed("t\nI1 0 a 0.1\nC1 a 0 100n\nD1 a 0 DM\n.tran 1u 10u\n" + card);
  ASSERT_EQ(biased.circuit.bias_notes.size(), 1u);
  EXPECT_TRUE(biased.circuit.bias_notes[0].starts_with("d1 forward: bias knot at 100 mA"))
      << biased.circuit.bias_notes[0];
  circuit::idealize_diodes(biased.circuit);
  EXPECT_TRUE(biased.circuit.bias_notes.empty()) << biased.circuit.bias_notes[0];
}

// LTspice: Ron Vfwd Vrev Rrev Ilimit revIlimit map exactly. With a 10 Ω load the current of the
// sweep V is the closed form
//   V > Vfwd:  min((V − Vfwd)/(Ron + 10), Ilimit);   V < −Vrev: −min((−V − Vrev)/(Rrev + 10),
//   revIlimit);   0 in between.
TEST(SpiceDiodeModels, LtspiceIdealizedDiodeMatchesItsClosedForm) {
  const Waveforms r = simulate_fixed(
      "t\n" + kSweep +
      ".model DM D(Ron=0.5 Vfwd=0.7 Vrev=3 Rrev=2 Ilimit=0.1 revIlimit=0.5)\n.end\n");
  ASSERT_TRUE(r.result.ok()) << r.diagnostics << r.result.summary.message;
  const auto va = r.series("v(a)"), id = r.series("i(d1)");
  bool limited = false, reverse_limited = false;
  for (size_t k = 0; k < r.t.size(); ++k) {
    const double v = va[k];
    double i = 0;
    if (v > 0.7) i = std::min((v - 0.7) / 10.5, 0.1);
    if (v < -3) i = -std::min((-v - 3) / 12, 0.5);
    EXPECT_NEAR(id[k], i, 1e-9) << "v = " << v;
    limited |= i == 0.1;
    reverse_limited |= i == -0.5;
  }
  EXPECT_TRUE(limited && reverse_limited) << "the sweep reaches both limits";
}

TEST(SpiceDiodeModels, LtspiceDefaultsRonOneOhm) {
  const Waveforms r = simulate_fixed("t\n" + kSweep + ".model DM D(Vfwd=0.7)\n.end\n");
  ASSERT_TRUE(r.result.ok()) << r.diagnostics << r.result.summary.message;
  EXPECT_DOUBLE_EQ(diode(r, "d1")->model.ron, 1.0);
  EXPECT_NEAR(r.series("i(d1)").back(), (2 - 0.7) / 11, 1e-9);
}

}  // namespace
}  // namespace nsspice::testing
