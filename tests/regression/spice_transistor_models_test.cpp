// SPICE transistor cards through the PWL conversions (docs/devices.md): what a VDMOS and a
// bipolar card become, their static characteristics against the closed forms within the
// tolerance (square law, Ebers–Moll: exact β, junction law, V_CE(sat)), and their errors. The
// comparisons with ngspice are in tests/app/spice_models_ngspice_test.cpp. Fixed steps
// (.tran TSTEP and simulate_fixed) so that nothing here depends on the default stepping.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "circuit/elaborate.hpp"
#include "circuit/junction_charge.hpp"
#include "helpers.hpp"
#include "netlist/parse.hpp"

namespace nsspice::testing {
namespace {

template <class T>
const T* device(const circuit::Circuit& c, const std::string& name) {
  for (const auto& d : c.devices)
    if (const auto* p = std::get_if<T>(&d); p && p->name == name) return p;
  return nullptr;
}

circuit::Circuit elaborated(const std::string& text, std::string& messages) {
  netlist::SourceManager sources;
  netlist::Diagnostics diags;
  const netlist::Netlist tree = netlist::parse_string(text, "t.cir", sources, diags);
  circuit::Circuit c = circuit::elaborate(tree, diags);
  EXPECT_FALSE(diags.has_errors()) << diags.format(sources);
  messages = diags.format(sources);
  return c;
}

// The VDMOS example: every part of the card is a device of its own with the card's values;
// CGD's two slopes move the charge of ngspice's C(v_gd) over [−34 V, 0] and [0, 34 V]
// (34 V = 24 V + 10 V, the sources' amplitudes), checked by integrating C(v) numerically.
TEST(SpiceVdmosModels, CardBecomesThePwlMosWithItsParts) {
  std::string messages;
  const circuit::Circuit c = elaborated(read_example("spice_vdmos_buck.cir"), messages);
  // LAMBDA at the initial point (the buck's switch is off there: not applied, and said so).
  ASSERT_FALSE(c.bias_notes.empty());
  EXPECT_NE(c.bias_notes[0].find("LAMBDA 0.01 /V: the channel is off at the initial point"),
            std::string::npos)
      << c.bias_notes[0];
  EXPECT_NE(messages.find("parameters mfg, Vds, Ron, Qg are ignored"), std::string::npos)
      << messages;
  const auto* m = device<circuit::Mosfet>(c, "m1");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->model.vdmos);
  EXPECT_DOUBLE_EQ(m->model.kp * m->w / m->l, 8.0) << "K = KP, no W/L";
  EXPECT_DOUBLE_EQ(m->model.vto, 3.8);
  EXPECT_GE(m->model.knots.size(), 10u);
  EXPECT_EQ(c.nodes[static_cast<size_t>(m->g)], "m1.g");
  EXPECT_EQ(c.nodes[static_cast<size_t>(m->d)], "m1.d");
  EXPECT_EQ(c.nodes[static_cast<size_t>(m->s)], "m1.s");
  EXPECT_DOUBLE_EQ(device<circuit::Resistor>(c, "m1.rg")->r, 3.0);
  EXPECT_DOUBLE_EQ(device<circuit::Resistor>(c, "m1.rd")->r, 0.035);
  EXPECT_DOUBLE_EQ(device<circuit::Resistor>(c, "m1.rs")->r, 0.025);
  EXPECT_DOUBLE_EQ(device<circuit::Capacitor>(c, "m1.cgs")->c, 0.7e-9);
  const auto* body = device<circuit::Diode>(c, "m1.body");
  ASSERT_NE(body, nullptr);
  EXPECT_EQ(c.nodes[static_cast<size_t>(body->a)], "sw") << "NMOS: anode at the source";
  EXPECT_EQ(c.nodes[static_cast<size_t>(body->k)], "in");
  EXPECT_DOUBLE_EQ(body->model.rs, 0.04) << "RB in the body diode's branch";
  EXPECT_DOUBLE_EQ(body->model.stored_charge, 80e-9) << "TT";
  EXPECT_GE(body->model.forward.size(), 3u);
  // CGD: C(v) = y + s·tanh(v) (v > 0), y + s·atan(v) (v < 0), s = ΔC/(1 + π/2), y = CGDMAX − s.
  const double s = (1.1e-9 - 0.08e-9) / (1 + M_PI / 2), y = 1.1e-9 - s;
  double q_neg = 0, q_pos = 0;
  const int n = 200000;
  for (int k = 0; k < n; ++k) {
    const double v = 34.0 * (k + 0.5) / n;
    q_pos += (y + s * std::tanh(v)) * 34.0 / n;
    q_neg += (y + s * std::atan(-v)) * 34.0 / n;
  }
  const auto* cgd = device<circuit::Capacitor>(c, "m1.cgd");
  ASSERT_NE(cgd, nullptr);
  EXPECT_NEAR(cgd->c, q_neg / 34.0, 1e-6 * cgd->c);
  EXPECT_NEAR(m->model.cgd.c_hi(), q_pos / 34.0, 1e-6 * m->model.cgd.c_hi());
}

// A diode-connected VDMOS fed by a current I: the gate sits at the drain (no gate current), so
// v(d) = VTO + √(2I/KP) + RS·I (RD carries I outside the gate loop), within the gate-voltage
// tolerance. PCHAN mirrors it: the source at 10 V, v(d) = 10 − (|VTO| + √(2I/KP) + RS·I). Then
// with the gate held off, a current forced from source to drain flows in the body diode:
// v_sd = N·Vt·ln(1 + I/IS) + RB·I within the diode tolerance.
TEST(SpiceVdmosModels, StaticCharacteristicsWithinTheTolerance) {
  const std::string card =
      ".model NX VDMOS(Vto=3 Kp=5 Rd=20m Rs=30m Rb=50m Is=10p N=1.2)\n"
      ".model PX VDMOS(pchan Vto=-3 Kp=5 Rd=20m Rs=30m Rb=50m Is=10p N=1.2)\n.tran 1m 1\n.end\n";
  const Waveforms r = simulate_fixed(
      "t\nI1 0 d PWL(0 0 1 2)\nM1 d d 0 NX\nV2 s 0 10\nI2 dp 0 PWL(0 0 1 2)\nM2 dp dp s PX\n"
      "I3 0 x PWL(0 0 1 2)\nM3 0 0 x NX\n" +
      card);
  ASSERT_TRUE(r.result.ok()) << r.diagnostics << r.result.summary.message;
  const auto vd = r.series("v(d)"), vdp = r.series("v(dp)"), vx = r.series("v(x)");
  const double vt = 1.38064852e-23 / 1.6021766208e-19 * 300.15;
  int checked = 0;
  for (size_t k = 0; k < r.t.size(); ++k) {
    const double i = 2 * r.t[k];
    if (i < 1e-3) continue;
    const double x = std::sqrt(2 * i / 5), tol = 0.01 * std::max(1.0, 3 + x) + 1e-9;
    EXPECT_NEAR(vd[k], 3 + x + 0.03 * i, tol) << "NMOS, I = " << i;
    EXPECT_NEAR(vdp[k], 10 - (3 + x + 0.03 * i), tol) << "PMOS, I = " << i;
    const double body = 1.2 * vt * std::log1p(i / 10e-12) + 0.05 * i;
    EXPECT_NEAR(vx[k], body, 0.01 * std::max(1.0, body) * (1 + 1e-6)) << "body diode, I = " << i;
    ++checked;
  }
  EXPECT_GT(checked, 900);
}

// Forward active, base driven by a current, collector held at 5 V: the transport currents are
// exact, I_C = BF·I_B to rounding, and V_BE is the junction law NF·Vt·ln(1 + I_C/IS) within the
// tolerance. The PNP mirrors it. Without GMIN (.options gmin=0): the 4.3 pA it draws across the
// blocking B-C junction would be 150 × that at the collector, 4e-5 of I_C at I_B = 0.1 µA.
TEST(SpiceBjtModels, ForwardActiveHasExactBetaAndTheJunctionLaw) {
  const Waveforms r = simulate_fixed(
      "t\nIB 0 b PWL(0 0 1 100u)\nVC c 0 5\nQ1 c b 0 QN\n"
      "IBP bp 0 PWL(0 0 1 100u)\nVCP cp 0 -5\nQ2 cp bp 0 QP\n"
      ".model QN NPN(IS=1e-14 BF=150 BR=3 RB=0 RE=0 RC=0)\n"
      ".model QP PNP(IS=1e-14 BF=150 BR=3)\n.options gmin=0\n.tran 1m 1\n.end\n");
  ASSERT_TRUE(r.result.ok()) << r.diagnostics << r.result.summary.message;
  const auto ic = r.series("i(q1)"), ib = r.series("ib(q1)"), vb = r.series("v(b)");
  const auto icp = r.series("i(q2)"), vbp = r.series("v(bp)");
  const double vt = 1.38064852e-23 / 1.6021766208e-19 * 300.15;
  int checked = 0;
  for (size_t k = 0; k < r.t.size(); ++k) {
    const double i_b = 100e-6 * r.t[k];
    if (i_b < 1e-8) continue;
    EXPECT_NEAR(ib[k], i_b, 1e-12 * i_b + 1e-18);
    EXPECT_NEAR(ic[k], 150 * i_b, 1e-9 * 150 * i_b) << "I_C = BF·I_B";
    EXPECT_NEAR(icp[k], -150 * i_b, 1e-9 * 150 * i_b) << "PNP: I_C out of the collector";
    const double vbe = vt * std::log1p(150 * i_b / 1e-14);
    EXPECT_NEAR(vb[k], vbe, 0.01 * (1 + 1e-6)) << "I_C = " << 150 * i_b;
    EXPECT_NEAR(-vbp[k], vbe, 0.01 * (1 + 1e-6)) << "PNP, I_C = " << 150 * i_b;
    ++checked;
  }
  EXPECT_GT(checked, 900);
}

// Saturation (Ebers–Moll, both junctions on): with forced β_f = I_C/I_B < BF,
//   V_CE(sat) = Vt·ln[(1 + (β_f + 1)/BR) / (1 − β_f/BF)]
// (Sedra–Smith; both junctions on the same exponential law), within two junction tolerances.
// A Darlington held off: the node between Q1's emitter and Q2's base is held only by blocking
// junctions and the pA that cross them. With SPICE's GMIN across each junction it has a voltage:
// ngspice-39's .op gives 0.3005 V (11.7 pA through Q2's B-C GMIN into Q2's B-E junction); here
// the PWL B-E junction carries that on its first segment (knot at 10 nA), 0.385 V. Without GMIN
// on the bipolar junctions the node had no defined voltage and the run gave −0.384 V.
TEST(SpiceBjtModels, GminGivesTheNodeBetweenADarlingtonsJunctionsAVoltage) {
  const Waveforms r = simulate(
      "t\nVCC vcc 0 12\nRL vcc c 1k\nVB b 0 0\nQ1 c b e1 QN\nQ2 c e1 0 QN\n"
      ".model QN NPN(IS=1e-14 BF=100 BR=1)\n.tran 1u 10u\n.end\n",
      {}, true);
  ASSERT_TRUE(r.result.ok()) << r.diagnostics << r.result.summary.message;
  for (double v : r.series("v(e1)")) EXPECT_NEAR(v, 0.3005, 0.1);
  for (double v : r.series("v(c)")) EXPECT_NEAR(v, 12.0, 2e-6);  // RL·BF·11 pA
}

// VAF is not modelled; after a run the Early factor f = 1 + v_cb/VAF that ngspice's collector
// current carries is measured over the points where the transistor conducts
// (circuit/src/bjt_early_check.hpp). Base current 10 µA, collector held at 10 V: f is constant,
// 1 + (10 − v_be)/VAF; at VAF = 50 V that is 1.19, a warning with it; at 1000 V (0.9 %) none.
TEST(SpiceBjtModels, TheEarlyFactorOfARunIsMeasured) {
  for (const double vaf : {50.0, 1000.0}) {
    const Waveforms r = simulate(fmt::format("t\nIB 0 b 10u\nVC c 0 10\nQ1 c b 0 QN\n"
                                             ".model QN NPN(IS=1e-14 BF=100 VAF={})\n"
                                             ".tran 1u 100u\n.end\n",
                                             vaf),
                                 {}, true);
    ASSERT_TRUE(r.result.ok()) << r.diagnostics << r.result.summary.message;
    const double f = 1 + (10 - r.series("v(b)").back()) / vaf;
    std::string found;
    for (const std::string& w : r.result.warnings)
      if (w.find("VAF") != std::string::npos) found = w;
    if (vaf < 100) {
      EXPECT_NE(found.find(fmt::format("on average {:.3g} times the PWL one", f)),
                std::string::npos)
          << found;
      EXPECT_NE(found.find(fmt::format("off by about {:+.0f} %", 100 * (1 / f - 1))),
                std::string::npos)
          << found;
    } else {
      EXPECT_TRUE(found.empty()) << found;
    }
  }
}

TEST(SpiceBjtModels, SaturationVoltageIsEbersMolls) {
  const Waveforms r = simulate_fixed(
      "t\nIB 0 b 1m\nIC 0 c PWL(0 0 1 50m)\nQ1 c b 0 QN\n"
      ".model QN NPN(IS=1e-14 BF=150 BR=3)\n.tran 1m 1\n.end\n");
  ASSERT_TRUE(r.result.ok()) << r.diagnostics << r.result.summary.message;
  const auto vc = r.series("v(c)");
  const double vt = 1.38064852e-23 / 1.6021766208e-19 * 300.15;
  int checked = 0;
  for (size_t k = 0; k < r.t.size(); ++k) {
    const double beta = 50e-3 * r.t[k] / 1e-3;
    if (beta < 2 || beta > 45) continue;
    const double exact = vt * std::log((1 + (beta + 1) / 3) / (1 - beta / 150));
    EXPECT_NEAR(vc[k], exact, 0.02) << "β_f = " << beta;
    ++checked;
  }
  EXPECT_GT(checked, 500);
}

// A MOSFET's M (docs/devices.md, "Area and M"): M devices in parallel, as ngspice scales a
// level-1 MOSFET and a VDMOS. A buck with each runs exactly as with a card scaled by hand (KP,
// CGS, CGDMAX, CGDMIN and the body/bulk diodes' IS, CJO times M, RD, RS, RG, RDS and RB over it,
// the body's IBV times M), and the card used only through M is not converted on its own.
// (ngspice-39 at DC, VGS 4 V, VDS 1 V: the level-1 card below with M = 2 and the card with 2·KP
// and RD/2, RS/2 both give 8.57317 A; a VDMOS with M = 3 gives 3× its M = 1 current.)
TEST(SpiceTransistorModels, MIsDevicesInParallel) {
  const std::string buck =
      "t\nVIN in 0 12\nVG g 0 PULSE(0 10 0 20n 20n 4.98u 10u)\nM1 in g sw {}\n"
      "D1 0 sw DS\nL1 sw out 22u\nC1 out 0 22u\nRL out 0 2\n"
      ".model DS D(IS=31.7u RS=0.051 N=1.373 CJO=190p M=0.3)\n{}\n.tran 50n 100u\n.end\n";
  const std::string level1 = ".model NM NMOS(LEVEL=1 VTO=2 KP=20 RD=0.1 RS=0.1 IS=1e-12)";
  const std::string level1_x2 = ".model NM2 NMOS(LEVEL=1 VTO=2 KP=40 RD=0.05 RS=0.05 IS=2e-12)";
  const std::string vdmos =
      ".model MV VDMOS(VTO=2 KP=5 RD=0.03 RS=0.02 RG=3 RDS=1e6 CGS=1n CGDMAX=1n CGDMIN=0.1n A=1 "
      "IS=1e-12 RB=0.01 CJO=500p BV=60 IBV=1m)";
  const std::string vdmos_x3 =
      ".model MV3 VDMOS(VTO=2 KP=15 RD=0.01 RS={} RG=1 RDS={} CGS=3n CGDMAX=3n CGDMIN=0.3n A=1 "
      "IS=3e-12 RB={} CJO=1.5n BV=60 IBV=3m)";
  const std::string hand3 = fmt::format(fmt::runtime(vdmos_x3), 0.02 / 3, 1e6 / 3, 0.01 / 3);
  const std::array<std::array<std::string, 4>, 2> cases{
      {{"sw NM m=2", level1, "sw NM2", level1_x2}, {"MV M=3", vdmos, "MV3", hand3}}};
  for (const auto& [inst, card, hand_inst, hand_card] : cases) {
    const Waveforms scaled = simulate_fixed(fmt::format(fmt::runtime(buck), inst, card));
    const Waveforms hand = simulate_fixed(fmt::format(fmt::runtime(buck), hand_inst, hand_card));
    ASSERT_TRUE(scaled.result.ok()) << scaled.diagnostics << scaled.result.summary.message;
    ASSERT_TRUE(hand.result.ok()) << hand.diagnostics << hand.result.summary.message;
    EXPECT_EQ(scaled.diagnostics.find("ignored"), std::string::npos) << scaled.diagnostics;
    expect_same_series(scaled, hand, {"v(out)", "i(l1)", "v(sw)"}, 1e-9, inst);
    const auto& conv = scaled.circuit.conversions;
    const bool vd = inst.starts_with("MV");
    const std::string name = vd ? "mv(m=3)" : "nm(m=2)";
    ASSERT_TRUE(std::any_of(conv.begin(), conv.end(), [&](const auto& c) {
      return c.summary.starts_with(name + ": ") &&
             c.summary.find(vd ? "the instance's M 3: the card's KP, CGS, CGDMAX, CGDMIN ×3 and "
                                 "RD, RS, RG, RDS ÷3, the body diode M junctions"
                               : "the instance's M 2: the card's KP ×2 and RD, RS ÷2, the bulk "
                                 "diodes M junctions") != std::string::npos;
    })) << inst;
    EXPECT_TRUE(std::none_of(conv.begin(), conv.end(), [&](const auto& c) {
      return c.summary.starts_with(vd ? "mv: " : "nm: ");
    })) << inst;
  }
  std::string messages;
  netlist::SourceManager sources;
  netlist::Diagnostics diags;
  circuit::elaborate(
      netlist::parse_string("t\nM1 d g 0 MV m=-1\n" + vdmos + "\n.end\n", "t.cir", sources, diags),
      diags);
  EXPECT_NE(diags.format(sources).find("t.cir:2:1: error: MOSFET 'm1' needs M > 0, got -1"),
            std::string::npos)
      << diags.format(sources);
}

// A CMOS inverter of two VDMOS cards from ngspice's examples/vdmos/ro_11_vdmos.sp (KP 1e-5,
// body diodes behind RB = 10 MΩ, CJO 1 nF; the PMOS with m=2), without CGS and CGD, driven by a
// 1 ns edge into 0.2 pF. Its mode matrices hold columns 1e17 apart in scale (the body diodes'
// segments at picoamperes against the nodes at femtosecond steps): the run stopped at the first
// edge, "singular in every mode tried", until the singularity test equilibrated the columns
// (klu_lu.hpp). Against ngspice-39 on the same netlist: t_fall 6.7075 ns, t_rise 3.3809 ns (input
// at 2.5 V to output at 2.5 V); nsspice 6.655 / 3.361 ns, checked within 2 %.
TEST(SpiceVdmosModels, InverterWithBodyDiodesBehindALargeRbRuns) {
  const Waveforms r = simulate(
      "t\nvdd 1 0 5.0\nvin in 0 PULSE(0 5 10n 1n 1n 100n 200n)\nmp1 out in 1 P1 m=2\n"
      "mn1 out in 0 N1\nc1 out 0 0.2p\n"
      ".model N1 vdmos vto=1 rg=10 kp=1e-5 rb=1e7 cjo=1n ksubthres=0.2\n"
      ".model P1 vdmos vto=-1 rg=10 kp=1e-5 rb=1e7 cjo=1n pchan ksubthres=0.2\n"
      ".tran 0.1n 200n\n.end\n",
      {}, true);
  ASSERT_TRUE(r.result.ok()) << r.diagnostics << r.result.summary.message;
  const auto out = r.series("v(out)");
  // The first crossing of 2.5 V by v(out) after t0, linearly interpolated.
  const auto crossing = [&](double t0, bool falling) {
    for (size_t k = 1; k < r.t.size(); ++k) {
      if (r.t[k - 1] < t0) continue;
      const double a = out[k - 1] - 2.5, b = out[k] - 2.5;
      if (falling ? (a > 0 && b <= 0) : (a < 0 && b >= 0))
        return r.t[k - 1] + (r.t[k] - r.t[k - 1]) * a / (a - b);
    }
    return -1.0;
  };
  EXPECT_NEAR(crossing(10.5e-9, true) - 10.5e-9, 6.7075e-9, 0.02 * 6.7075e-9);
  EXPECT_NEAR(crossing(111.5e-9, false) - 111.5e-9, 3.3809e-9, 0.02 * 3.3809e-9);
}

TEST(SpiceTransistorModels, BadCardsAreClearErrors) {
  const std::string npn = elaboration_errors(
      "t\nV1 c 0 5\nQ1 c c 0 QN\n.model QN NPN(IS=-1f NF=0 BF=100)\n.tran 1u 1m\n.end\n");
  EXPECT_NE(npn.find("t.cir:4:18: error: model parameter 'IS' must be a number > 0, got '-1f'"),
            std::string::npos)
      << npn;
  EXPECT_NE(npn.find("t.cir:4:25: error: model parameter 'NF' must be a number > 0, got '0'"),
            std::string::npos)
      << npn;
  const std::string level = elaboration_errors(
      "t\nV1 c 0 5\nQ1 c c 0 QN\n.model QN NPN(LEVEL=4 IS=1f)\n.tran 1u 1m\n.end\n");
  EXPECT_NE(level.find("t.cir:4:21: error: unknown BJT LEVEL 4 in model 'qn': nsspice has the "
                       "Ebers–Moll (Gummel–Poon level 1) model as PWL only"),
            std::string::npos)
      << level;
  const std::string vdmos = elaboration_errors(
      "t\nV1 d 0 5\nM1 d d 0 VX\n.model VX VDMOS(IS=-2p N=0 CGDMIN=2n CGDMAX=1n)\n"
      ".tran 1u 1m\n.end\n");
  EXPECT_NE(vdmos.find("t.cir:4:20: error: model parameter 'IS' must be a number > 0, got '-2p'"),
            std::string::npos)
      << vdmos;
  EXPECT_NE(vdmos.find("t.cir:4:26: error: model parameter 'N' must be a number > 0, got '0'"),
            std::string::npos)
      << vdmos;
  EXPECT_NE(vdmos.find("error: model 'vx': CGDMIN (2e-09 F) above CGDMAX (1e-09 F)"),
            std::string::npos)
      << vdmos;
  const std::string nodes = elaboration_errors(
      "t\nV1 d 0 5\nM1 d d 0 NM\nQ1 d d 0 NM\n.model NM NMOS(LEVEL=1 VTO=1 KP=1m)\n"
      ".tran 1u 1m\n.end\n");
  EXPECT_NE(nodes.find("t.cir:3:1: error: MOSFET 'm1' needs 4 nodes"), std::string::npos) << nodes;
  EXPECT_NE(nodes.find("t.cir:4:10: error: model 'nm' is not a NPN or PNP model, which bipolar "
                       "transistor 'q1' needs"),
            std::string::npos)
      << nodes;
}

// Unmodelled parameters with an effect are named with what they change.
TEST(SpiceTransistorModels, EarlyVoltageAndHighInjectionAreNamed) {
  std::string messages;
  elaborated(
      "t\nV1 c 0 5\nI1 0 b 10u\nQ1 c b 0 QN\n"
      ".model QN NPN(IS=1f BF=200 VAF=74 IKF=0.3 XTB=1.5)\n.tran 1u 1m\n.end\n",
      messages);
  EXPECT_NE(messages.find("model 'qn': not modelled by the PWL Ebers–Moll model: VAF = 74 "
                          "(forward Early voltage"),
            std::string::npos)
      << messages;
  EXPECT_NE(messages.find("IKF = 0.3 (high-injection knee"), std::string::npos) << messages;
  EXPECT_NE(messages.find("parameters XTB are ignored"), std::string::npos) << messages;
}

}  // namespace
}  // namespace nsspice::testing

namespace nsspice::testing {
namespace {

// UIC with .ic on a transistor's terminals: the nodes behind its series resistances (RB, RC, RE)
// start at their terminals' voltages, so its junction charges start from the state the user
// gave, as SPICE evaluates the junctions at the terminals' .ic. (With them at 0, an astable
// given "Q1 on, Q2 off" started in the opposite state: v(c1) rose through 2.5 V after 47 ps,
// where ngspice's first rise is at 0.710 ms.) The first steps keep every .ic node where it was
// put; the period of the oscillation is the other check (ngspice 1.44539 ms on the same deck;
// the PWL model's tolerance allows 1 %).
TEST(SpiceBjtModels, UicStartsTheInnerNodesAtTheirTerminals) {
  const Waveforms r = simulate(
      "astable\nVcc vcc 0 5\nRc1 vcc c1 1k\nRc2 vcc c2 1k\nRb1 vcc b1 100k\nRb2 vcc b2 100k\n"
      "C1 c1 b2 10n\nC2 c2 b1 10n\nQ1 c1 b1 0 QN\nQ2 c2 b2 0 QN\n"
      ".model QN NPN(IS=1E-14 BF=300 BR=4 CJC=4E-12 CJE=8E-12 RB=20 RC=0.1 RE=0.1 TR=250E-9 "
      "TF=350E-12)\n"
      ".ic v(c1)=0.1 v(c2)=5 v(b1)=0.7 v(b2)=-4\n.tran 1u 6m uic\n.end\n");
  ASSERT_TRUE(r.result.ok()) << r.result.summary.message;
  for (const auto& [inner, outer] : {std::pair{"v(q1.b)", "v(b1)"}, std::pair{"v(q1.c)", "v(c1)"},
                                     std::pair{"v(q2.b)", "v(b2)"}, std::pair{"v(q2.c)", "v(c2)"}})
    EXPECT_EQ(r.at(inner, 0), r.at(outer, 0)) << inner;
  EXPECT_EQ(r.at("v(q1.e)", 0), 0.0);
  // Q2 off and Q1 on after the first microsecond, where the user put them (ngspice: v(c2)
  // 4.9989 V, v(b1) 0.6988 V, v(c1) 0.0998 V). Before it, a glitch of ~0.1 ns: UIC starts every
  // junction pair blocking, and Q1's, at 0.7 V, turns on in the first step (its stored charge
  // TF·i from 0).
  const auto c2 = r.series("v(c2)"), b1 = r.series("v(b1)"), c1_ = r.series("v(c1)");
  size_t k = 0;
  while (r.t[k] < 1e-6) ++k;
  EXPECT_NEAR(c2[k], 5.0, 0.01) << r.t[k];
  EXPECT_NEAR(b1[k], 0.7, 0.01) << r.t[k];
  EXPECT_NEAR(c1_[k], 0.1, 0.05) << r.t[k];
  // The period, from the rises of v(c1) through 2.5 V after the first millisecond.
  const auto c1 = r.series("v(c1)");
  std::vector<double> rises;
  for (size_t k = 1; k < r.t.size(); ++k)
    if (c1[k - 1] < 2.5 && c1[k] >= 2.5)
      rises.push_back(r.t[k - 1] + (2.5 - c1[k - 1]) / (c1[k] - c1[k - 1]) * (r.t[k] - r.t[k - 1]));
  ASSERT_GE(rises.size(), 3u);
  EXPECT_NEAR(rises[0], 0.710e-3, 0.01e-3);  // ngspice: 0.710028 ms
  EXPECT_NEAR(rises[2] - rises[1], 1.44539e-3, 0.01 * 1.44539e-3);
}

// The conversion summary of model `name` ("" when it has none).
std::string summary_of(const circuit::Circuit& c, const std::string& name) {
  for (const auto& conv : c.conversions)
    if (conv.model == name) return conv.summary;
  return "";
}

// A level-1 card given by its process parameters, as ngspice's MOS1 reads it: KP = UO·C_ox
// (C_ox = 3.9·ε0/TOX) when KP is not given, and VTO from NSUB (PHI, GAMMA derived; NSS, TPG)
// when VTO is not given. The numbers are ngspice-39's (showmod after the run: vto, kp).
TEST(SpiceMosProcess, KpAndVtoAreDerivedAsNgspiceDoes) {
  std::string messages;
  const circuit::Circuit c = elaborated(
      "t\nVDD vdd 0 5\nRD vdd d 10k\nVG g 0 2\nM1 d g s b NM W=10u L=1u\nRS s 0 1k\n"
      "VB b 0 -2\nM2 d2 g 0 0 NS W=10u L=1u\nRD2 vdd d2 10k\nM3 d3 g vdd vdd PS W=10u L=1u\n"
      "RD3 d3 0 10k\nM4 d4 g 0 0 NK W=10u L=1u\nRD4 vdd d4 10k\n"
      ".model NM NMOS(LEVEL=1 VTO=0.7 TOX=20n UO=500 LAMBDA=0)\n"
      ".model NS NMOS(LEVEL=1 TOX=20n UO=500 NSUB=1e16)\n"
      ".model PS PMOS(LEVEL=1 TOX=20n U0=200 NSUB=1e15 NSS=1e10 TPG=-1)\n"
      ".model NK NMOS(LEVEL=1 KP=50u TOX=20n UO=500)\n.tran 0.1u 1u\n.end\n",
      messages);
  const double cox = 3.9 * 8.854214871e-12 / 20e-9;
  const auto* m1 = device<circuit::Mosfet>(c, "m1");
  ASSERT_NE(m1, nullptr);
  EXPECT_NEAR(m1->model.kp, 500e-4 * cox, 1e-12) << "ngspice: 8.63286e-05";
  EXPECT_NEAR(m1->model.kp, 8.63286e-05, 1e-10);
  EXPECT_DOUBLE_EQ(m1->model.vto, 0.7);
  EXPECT_NE(summary_of(c, "nm").find("; KP 8.633e-05 A/V² derived from UO 500 cm²/V·s and TOX "
                                     "2e-08 m, as ngspice's MOS1 does"),
            std::string::npos)
      << summary_of(c, "nm");
  EXPECT_EQ(messages.find("model 'nm': parameters"), std::string::npos) << messages;
  const auto* m2 = device<circuit::Mosfet>(c, "m2");
  ASSERT_NE(m2, nullptr);
  EXPECT_NEAR(m2->model.vto, 0.0684662, 1e-6);
  EXPECT_NE(summary_of(c, "ns").find("VTO 0.06847 V derived from NSUB 1e+16 cm⁻³ and TOX 2e-08 m "
                                     "(PHI 0.6955 V, GAMMA 0.3337 V^½, NSS 0 cm⁻², TPG 1, at TNOM "
                                     "27 °C)"),
            std::string::npos)
      << summary_of(c, "ns");
  EXPECT_NE(messages.find("model 'ns': VTO 0.06847 V derived from NSUB as ngspice's MOS1 does, at "
                          "v_sb = 0; GAMMA 0.3337 V^½ (derived from NSUB) is not modelled"),
            std::string::npos)
      << messages;
  const auto* m3 = device<circuit::Mosfet>(c, "m3");
  ASSERT_NE(m3, nullptr);
  EXPECT_NEAR(m3->model.vto, -0.935105, 1e-6);
  EXPECT_NEAR(m3->model.kp, 3.45314e-05, 1e-10);
  // KP given: UO has no effect (in ngspice neither), and TOX gives nothing the PWL MOS uses.
  const auto* m4 = device<circuit::Mosfet>(c, "m4");
  ASSERT_NE(m4, nullptr);
  EXPECT_DOUBLE_EQ(m4->model.kp, 50e-6);
  EXPECT_NE(messages.find("model 'nk': parameters TOX, UO are ignored"), std::string::npos)
      << messages;
  EXPECT_EQ(summary_of(c, "nk").find("derived"), std::string::npos) << summary_of(c, "nk");
}

TEST(SpiceMosProcess, SubstrateDopingBelowTheIntrinsicIsAnError) {
  netlist::SourceManager sources;
  netlist::Diagnostics diags;
  const netlist::Netlist tree = netlist::parse_string(
      "t\nM1 d g 0 0 NM\nV1 d 0 1\nV2 g 0 1\n.model NM NMOS(TOX=20n NSUB=1e9)\n.tran 1u 10u\n",
      "t.cir", sources, diags);
  circuit::elaborate(tree, diags);
  EXPECT_NE(diags.format(sources).find("t.cir:5:29: error: model 'nm': NSUB 1e+09 cm⁻³ is not "
                                       "above the intrinsic density 1.45e10 cm⁻³"),
            std::string::npos)
      << diags.format(sources);
}

}  // namespace
}  // namespace nsspice::testing
