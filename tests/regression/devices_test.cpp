// Nonsmooth devices (docs/devices.md): Zener, ideal switches, comparator, PWL MOS, against
// closed forms and the analyses of AB08; and the well-posedness diagnostics.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <numeric>
#include <sstream>

#include "checks.hpp"
#include "circuit/elaborate.hpp"
#include "helpers.hpp"
#include "netlist/parse.hpp"

namespace nsspice::testing {
namespace {

std::string with_tran(std::string text, const std::string& old_tran, const std::string& new_tran) {
  text.replace(text.find(old_tran), old_tran.size(), new_tran);
  return text;
}

// Values of `name` for t in [t0, t1].
std::vector<double> window(const Waveforms& r, const std::string& name, double t0, double t1) {
  const auto all = r.series(name);
  std::vector<double> out;
  for (size_t k = 0; k < r.t.size(); ++k)
    if (r.t[k] >= t0 && r.t[k] <= t1) out.push_back(all[k]);
  return out;
}

double mean(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / v.size();
}
double spread(const std::vector<double>& v) {
  return *std::max_element(v.begin(), v.end()) - *std::min_element(v.begin(), v.end());
}

TEST(Zener, ShuntRegulatorHoldsBreakdownPlusRzDrop) {
  const Waveforms r = simulate(read_example("zener_regulator.cir"));
  ASSERT_TRUE(r.result.ok()) << r.result.summary.message;
  expect_complementarity(r);
  const auto vin = r.series("v(in)"), vout = r.series("v(out)"), iz = r.series("i(dz)");
  for (size_t k = 0; k < r.t.size(); k += 97) {
    // Breakdown current k → a: (vin − vout)/100 − vout/1000; vout = BV + RZ · that current.
    const double i_break = (vin[k] - vout[k]) / 100 - vout[k] / 1000;
    EXPECT_NEAR(iz[k], -i_break, 1e-12);
    EXPECT_NEAR(vout[k], 5.1 + 0.5 * i_break, 1e-12);
  }
}

TEST(Zener, RlcZenerReachesTheSlidingModeWithoutChattering) {
  // AB08 §1.2 with Vz = 1 V: the reference (ngspice with N = 0.01 and a fine step, and the ideal
  // LCP reference of the reference runs) sticks at t = 13.524 s.
  const Waveforms r = simulate_fixed(read_example("rlc_zener.cir"));
  ASSERT_TRUE(r.result.ok()) << r.result.summary.message;
  expect_complementarity(r);
  expect_energy_non_increasing(r);
  const auto il = r.series("i(l1)"), vc = r.series("v(c)"), va = r.series("v(a)");
  size_t stick = r.t.size();
  while (stick > 0 && std::abs(il[stick - 1]) == 0.0) --stick;
  ASSERT_LT(stick, r.t.size());
  EXPECT_NEAR(r.t[stick], 13.524, 0.01) << "entry into the sliding mode";
  for (size_t k = stick; k < r.t.size(); ++k) {
    EXPECT_NEAR(va[k], vc[k], 1e-12) << "the Zener holds the capacitor voltage";
    EXPECT_NEAR(vc[k], vc[stick], 1e-12);
  }
  EXPECT_GE(vc[stick], 0.0);
  EXPECT_LE(vc[stick], 1.0) << "sliding only for v_C in [0, Vz] (AB08 Fig. 1.10)";
  EXPECT_LT(r.result.stats.mode_changes, 40) << "a handful of mode changes, not hundreds";
}

TEST(Switch, BuckInContinuousConductionMatchesTheTextbook) {
  const Waveforms r = simulate(read_example("buck.cir"));
  ASSERT_TRUE(r.result.ok()) << r.result.summary.message;
  expect_complementarity(r);
  const auto vout = window(r, "v(out)", 1.99e-3, 2e-3), il = window(r, "i(l1)", 1.99e-3, 2e-3);
  const double vin = 10, d = 0.5, t = 1e-5, l = 100e-6, c = 10e-6;
  EXPECT_NEAR(mean(vout), d * vin, spread(vout) / 2) << "average D·Vin within the ripple";
  EXPECT_NEAR(mean(vout), d * vin, 1e-3);
  const double di = (vin - d * vin) * d * t / l;  // 0.25 A
  EXPECT_NEAR(spread(il), di, 0.01 * di);
  EXPECT_NEAR(spread(vout), di * t / (8 * c), 0.03 * di * t / (8 * c));
  EXPECT_EQ(r.result.stats.switch_events, 400);  // 200 periods, on and off
}

TEST(Switch, BuckInDiscontinuousConductionAtLightLoad) {
  // R = 100 Ω > R_crit = 2L/(T(1−D)) = 40 Ω. DCM: M = 2/(1 + sqrt(1 + 4K/D²)), K = 2L/(RT).
  std::string text = with_tran(read_example("buck.cir"), ".tran 10n 2m UIC", ".tran 20n 12m UIC");
  text = with_tran(text, "R1   out 0 10", "R1   out 0 100");
  const Waveforms r = simulate(text);
  ASSERT_TRUE(r.result.ok()) << r.result.summary.message;
  expect_complementarity(r);
  const double k = 2 * 100e-6 / (100 * 1e-5), m = 2 / (1 + std::sqrt(1 + 4 * k / 0.25));
  const auto vout = window(r, "v(out)", 11.9e-3, 12e-3), il = window(r, "i(l1)", 11.9e-3, 12e-3);
  EXPECT_NEAR(mean(vout), 10 * m, 0.01 * 10 * m);
  const auto zero = std::count_if(il.begin(), il.end(), [](double i) { return i == 0.0; });
  EXPECT_GT(zero, static_cast<long>(il.size() / 10))
      << "the inductor current rests at 0 each period";
  EXPECT_GE(*std::min_element(il.begin(), il.end()), 0.0);
}

TEST(Comparator, ClosedLoopBuckRegulatesAtTheReference) {
  const Waveforms r = simulate(read_example("buck_closed_loop.cir"));
  ASSERT_TRUE(r.result.ok()) << r.result.summary.message;
  expect_complementarity(r);
  const auto vout = window(r, "v(out)", 2.9e-3, 3e-3), ctl = window(r, "v(ctl)", 2.9e-3, 3e-3);
  EXPECT_NEAR(mean(vout), 5.0, 0.01);
  int edges = 0;
  for (size_t k = 1; k < ctl.size(); ++k) edges += (ctl[k] > 0.5) != (ctl[k - 1] > 0.5);
  EXPECT_LE(edges, 21) << "one on/off pair per ramp period (10 periods): no chattering";
  EXPECT_GE(edges, 19);
}

TEST(Comparator, RelayInAFeedbackLoopSlidesExactly) {
  // dv/dt = (u − v)/RC with u = 0 or 5 V from an ideal relay on (ref − v): v reaches 2 V at
  // t* = RC ln(5/3) and then stays there exactly, the relay output inside (0, 5) V (sliding).
  const Waveforms r = simulate(
      "relay\nVref ref 0 DC 2\nE1 u 0 ref v CMP\nR1 u v 1k\nC1 v 0 1u IC=0\n"
      ".model CMP COMP(VLOW=0 VHIGH=5)\n.tran 10u 5m UIC\n.end\n");
  ASSERT_TRUE(r.result.ok()) << r.result.summary.message;
  expect_complementarity(r);
  const auto v = r.series("v(v)"), u = r.series("v(u)");
  const double t_star = 1e-3 * std::log(5.0 / 3.0);
  for (size_t k = 0; k < r.t.size(); ++k) {
    if (r.t[k] < t_star - 2e-5) {
      EXPECT_NEAR(v[k], 5 * (1 - std::exp(-r.t[k] / 1e-3)), 2e-3);
    }
    if (r.t[k] > t_star + 2e-5) {
      EXPECT_NEAR(v[k], 2.0, 1e-9) << "t = " << r.t[k];
      EXPECT_NEAR(u[k], 2.0, 1e-6) << "the relay supplies exactly the holding voltage";
    }
  }
  EXPECT_LE(r.result.stats.mode_changes, 4);
}

TEST(Mosfet, StaticCharacteristicIsThePwlSahModel) {
  // V_GS = 3 V, V_DS ramped 0 → 5 V. PWL MOS: I = K/2 (f(V_GS − VT) − f(V_GD − VT)), with f the
  // 6-segment table; Sah: I = K/2 (x² − y²), x, y the positive parts. K = KP W/L = 1 mA/V².
  const Waveforms r = simulate(
      "mos\nVG g 0 DC 3\nVD d 0 PWL(0 0 1 5)\nM1 d g 0 0 NM W=10u L=1u\n"
      ".model NM NMOS(KP=100u VTO=1)\n.tran 10m 1\n.end\n");
  ASSERT_TRUE(r.result.ok()) << r.result.summary.message;
  const std::vector<double> a = {0, 0.1, 0.2487, 0.6185, 1.5383};
  const std::vector<double> s = {0.09, 0.314055, 0.780422, 1.94107, 4.82766};
  auto f = [&](double x) {
    double y = 0;
    for (size_t i = 0; i < a.size(); ++i)
      y += (s[i] - (i ? s[i - 1] : 0.0)) * std::max(0.0, x - a[i]);
    return y;
  };
  double bound = 0;  // max |f(x) − x²| on the range used
  for (double x = 0; x <= 2.0; x += 1e-4) bound = std::max(bound, std::abs(f(x) - x * x));
  const auto vd = r.series("v(d)"), id = r.series("i(m1)"), isrc = r.series("i(vd)");
  const double k = 1e-3;
  for (size_t n = 0; n < r.t.size(); ++n) {
    const double x = 2.0, y = std::max(0.0, 2.0 - vd[n]);
    EXPECT_NEAR(id[n], k / 2 * (f(x) - f(y)), 1e-12);
    EXPECT_NEAR(isrc[n], -id[n], 1e-12);
    EXPECT_LE(std::abs(id[n] - k / 2 * (x * x - y * y)), k * bound + 1e-12) << "vd = " << vd[n];
  }
}

TEST(Mosfet, InverterChainDelaysGrowWithTheLoad) {
  double previous = 0;
  for (const char* cap : {"50f", "100f", "200f"}) {
    std::string text = read_example("cmos_inverter_chain.cir");
    for (size_t p = text.find(" 100f"); p != std::string::npos; p = text.find(" 100f", p + 1))
      text.replace(p + 1, 4, cap);
    const Waveforms r = simulate(text);
    ASSERT_TRUE(r.result.ok()) << r.result.summary.message;
    const auto vin = r.series("v(in)"), v10 = r.series("v(o10)");
    auto crossing = [&](const std::vector<double>& v) {
      for (size_t k = 1; k < v.size(); ++k)
        if ((v[k - 1] - 2.5) * (v[k] - 2.5) < 0) return r.t[k];
      return 0.0;
    };
    const double delay = crossing(v10) - crossing(vin);
    EXPECT_GT(delay, previous) << "C = " << cap;
    EXPECT_LT(*std::min_element(v10.begin(), v10.end()), 1e-6) << "rail to rail";
    EXPECT_GT(*std::max_element(v10.begin(), v10.end()), 5 - 1e-6);
    previous = delay;
  }
}

TEST(Switch, CurrentControlledSwitchFollowsItsHysteresis) {
  // W1 closes when i(vs) > IT + IH = 1.5 mA and opens below IT − IH = 0.5 mA; the control current
  // is a 0 → 2 → 0 mA triangle: closed between the crossings of 1.5 mA (up) and 0.5 mA (down).
  const Waveforms r = simulate(
      "csw\nIC 0 c PWL(0 0 1m 2m 2m 0)\nVS c 0 DC 0\nV1 a 0 DC 1\nW1 a b VS CSWM\nR1 b 0 1k\n"
      ".model CSWM CSW(IT=1m IH=0.5m)\n.tran 10u 2m\n.end\n");
  ASSERT_TRUE(r.result.ok()) << r.result.summary.message;
  const auto vb = r.series("v(b)");
  for (size_t k = 0; k < r.t.size(); ++k) {
    const bool closed = r.t[k] > 0.75e-3 + 1e-9 && r.t[k] < 1.75e-3 - 1e-9;
    if (std::abs(r.t[k] - 0.75e-3) < 1e-8 || std::abs(r.t[k] - 1.75e-3) < 1e-8) continue;
    EXPECT_NEAR(vb[k], closed ? 1.0 : 0.0, 1e-12) << "t = " << r.t[k];
  }
  EXPECT_EQ(r.result.stats.switch_events, 2);
}

// Elaboration messages of the well-posedness checks.
std::string diagnostics_of(const std::string& text) {
  netlist::SourceManager sources;
  netlist::Diagnostics diags;
  const netlist::Netlist tree = netlist::parse_string(text, "w.cir", sources, diags);
  circuit::elaborate(tree, diags);
  return diags.format(sources);
}

// A current source into an ideal diode across a resistor: while I > 0 the diode conducts and
// every node voltage is 0, so the solve's x is the rounding of I/g (1.4e-14 V for 0.1 A into
// 1 kΩ) with nothing else in x to measure it against. The mode check took that rounding for a
// violated pair ("no mode satisfies the complementarity conditions", the run stopped at its
// second step); it now measures x's rounding against the multipliers' share of the solution too
// (ModeMlcp::check). Closed form: v(a) = min(0, I·R), i(d1) = max(0, I).
TEST(IdealDiode, DrivenByACurrentSourceWithEveryVoltageZero) {
  struct Source {
    const char* card;
    double offset, peak;
  };
  for (const char* method : {"theta stepping=fixed", "theta", "event"}) {
    for (const Source source :
         {Source{"SIN(0.1 0.001 1k)", 0.1, 0.001}, Source{"SIN(0 0.1 1k)", 0, 0.1}}) {
      const std::string deck = fmt::format(
          "t\nI1 0 a {}\nR1 a 0 1k\nD1 a 0 DX\n.model DX D\n.options method={}\n"
          ".tran 2u 2m\n.end\n",
          source.card, method);
      const Waveforms w = simulate(deck);
      const std::string what = fmt::format("{}, {}", method, source.card);
      ASSERT_TRUE(w.result.ok()) << what << ": " << w.result.summary.message;
      ASSERT_GT(w.t.size(), 20u) << what;
      const auto v = w.series("v(a)");
      const auto i = w.series("i(d1)");
      // The event mode locates the turn-off (I = 0 at 1.5 ms) within a few ns: 2.5e-8 of the
      // 0.1 A peak; the θ-scheme is exact on this circuit to rounding.
      const double rel = std::string(method) == "event" ? 1e-7 : 1e-9;
      for (size_t k = 0; k < w.t.size(); ++k) {
        const double current = source.offset + source.peak * std::sin(2 * M_PI * 1e3 * w.t[k]);
        EXPECT_NEAR(v[k], std::min(0.0, current * 1e3), rel * 100) << what << ", t = " << w.t[k];
        EXPECT_NEAR(i[k], std::max(0.0, current), rel * 0.1) << what << ", t = " << w.t[k];
      }
    }
  }
}

TEST(WellPosedness, LoopOfVoltageSources) {
  const std::string d =
      diagnostics_of("t\nV1 a 0 1\nV2 a b 1\nV3 b 0 2\nR1 a 0 1k\n.tran 1u 1m\n.end\n");
  EXPECT_NE(d.find("w.cir:4:1: error: loop of voltage-defined branches: v1, v2, v3 (their voltages "
                   "cannot be "
                   "set independently)"),
            std::string::npos)
      << d;
}

TEST(WellPosedness, IdealSwitchClosingALoopIsAWarning) {
  const std::string d = diagnostics_of(
      "t\nV1 a 0 1\nVC c 0 1\nS1 a 0 c 0 SW0\nR1 a 0 1k\n.model SW0 SW(VT=0.5)\n.tran 1u "
      "1m\n.end\n");
  EXPECT_NE(d.find("w.cir:4:1: warning: loop of voltage-defined branches v1, s1 when the ideal "
                   "switches in it "
                   "are on together: the run stops if that happens"),
            std::string::npos)
      << d;
}

TEST(WellPosedness, CutSetOfCurrentSources) {
  const std::string d = diagnostics_of("t\nI1 0 a 1m\nI2 a b 2m\nR1 b 0 1k\n.tran 1u 1m\n.end\n");
  EXPECT_NE(d.find("error: cut-set made only of current sources: i1, i2"), std::string::npos) << d;
}

TEST(WellPosedness, InductorInSeriesWithACurrentSource) {
  const std::string d =
      diagnostics_of("t\nI1 0 a 1m\nL1 a 0 1m\nL2 a b 1m\nR1 b 0 1\n.tran 1u 1m\n.end\n");
  EXPECT_EQ(d.find("cut-set made only of current sources"), std::string::npos) << d;
  // Without UIC the operating point starts L1 at I1's current: nothing to warn about. Under
  // UIC L1 starts at 0 A against I1's 1 mA: a warning with the jump.
  const std::string e = diagnostics_of("t\nI1 0 a 1m\nL1 a b 1m\nR1 b 0 1\n.tran 1u 1m\n.end\n");
  EXPECT_EQ(e, "");
  const std::string u =
      diagnostics_of("t\nI1 0 a 1m\nL1 a b 1m\nR1 b 0 1\n.tran 1u 1m UIC\n.end\n");
  EXPECT_NE(u.find("warning: contradictory initial conditions (UIC) across the cut-set i1 = "
                   "0.001 A at t = 0, l1 IC=0 A"),
            std::string::npos)
      << u;
}

TEST(WellPosedness, ContradictoryCapacitorIcsJumpToTheWarnedVoltage) {
  // Issue 16: C1 (IC=1) and C2 (IC=2) in parallel under UIC. The warning names the
  // charge-conserving common voltage (1u·1 + 1u·2) / 2u = 1.5 V; the run's first step lands
  // there (R1 = 1 GΩ: τ = 2000 s, a drift below 1e-9 V in one step of 1 µs).
  const std::string text =
      "t\nC1 out 0 1u IC=1\nC2 out 0 1u IC=2\nR1 out 0 1g\n.tran 1u 10u UIC\n.end\n";
  EXPECT_NE(diagnostics_of(text).find("c1 1 V -> 1.5 V, c2 2 V -> 1.5 V"), std::string::npos)
      << diagnostics_of(text);
  const Waveforms r = simulate(text);
  ASSERT_GE(r.t.size(), 2u) << r.diagnostics;
  EXPECT_NEAR(r.at("v(out)", 1), 1.5, 1e-6);
}

TEST(WellPosedness, NodeWithoutADcPathAndDanglingNode) {
  const std::string d =
      diagnostics_of("t\nV1 a 0 1\nC1 a b 1u\nC2 b 0 1u\nR1 a c 1k\n.tran 1u 1m\n.end\n");
  EXPECT_NE(d.find("warning: node 'b' has no DC path to ground (only capacitors or current "
                   "sources reach it: c1, c2)"),
            std::string::npos)
      << d;
  EXPECT_NE(d.find("warning: node 'c' is connected to only one element terminal"),
            std::string::npos)
      << d;
}

}  // namespace
}  // namespace nsspice::testing

namespace nsspice::testing {
namespace {

// UIC fixes the capacitor voltage but not the switch's control node (a divider of a DC source):
// the switch starts in the state its control gives at t = 0⁺ (on: 1 V > VT = 0.5 V), so the
// capacitor discharges through RON from the first step, as for a switch that was on all along.
TEST(Switch, UicStateFollowsTheControlAtTheStart) {
  const Waveforms r = simulate(
      "uic switch\nV1 c 0 DC 2\nR1 c ctl 1k\nR2 ctl 0 1k\nC1 out 0 1u IC=5\n"
      "S1 out 0 ctl 0 SW1\n.model SW1 SW(VT=0.5 RON=1 ROFF=1e9)\n.tran 1u 20u UIC\n.end\n");
  ASSERT_TRUE(r.result.ok()) << r.result.summary.message;
  ASSERT_GT(r.t.size(), 2u);
  // RC = 1 µs: v(out) = 5 e^{−t/RC} from t = 0 (within the error control's 1e-3 of 5 V), and
  // the switch current is v(out)/RON at every point after the start; a switch that started off
  // would hold 5 V.
  const auto v = r.series("v(out)"), i = r.series("i(s1)");
  size_t checked = 0;
  for (size_t k = 1; k < r.t.size(); ++k) {
    EXPECT_NEAR(v[k], 5.0 * std::exp(-r.t[k] / 1e-6), 5e-3) << "t = " << r.t[k];
    EXPECT_NEAR(i[k], v[k] / 1.0, 1e-6 * 5.0);
    checked += r.t[k] <= 3e-6;
  }
  EXPECT_GT(checked, 5u);
  EXPECT_LT(v.back(), 1e-6);
}

}  // namespace
}  // namespace nsspice::testing
