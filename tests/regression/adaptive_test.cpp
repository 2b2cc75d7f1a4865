// The error-controlled θ-scheme (the default; docs/theory.md §11) against converged references:
// the fixed-step scheme at a step far below the adaptive one, or the event-driven mode. The
// power circuits are written as SPICE users write them: TSTEP a tenth of the switching period.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "helpers.hpp"

namespace nsspice::testing {
namespace {

// Linear interpolation of `r`'s signal at time t (r's points are 0.1 µs apart or closer).
double at_time(const Waveforms& r, const std::vector<double>& v, double t) {
  const auto it = std::lower_bound(r.t.begin(), r.t.end(), t);
  if (it == r.t.begin()) return v.front();
  if (it == r.t.end()) return v.back();
  const size_t k = static_cast<size_t>(it - r.t.begin());
  const double a = (t - r.t[k - 1]) / (r.t[k] - r.t[k - 1]);
  return (1 - a) * v[k - 1] + a * v[k];
}

circuit::TransientOptions adaptive() {
  circuit::TransientOptions o;
  o.adaptive = true;
  return o;
}

const char* kRectifier =
    "half-wave\nV1 in 0 SIN(0 10 50)\nD1 in out DI\nC1 out 0 10u\nR1 out 0 1k\n.model DI D\n"
    ".options reltol={reltol}\n.tran 1m 60m\n.end\n";

std::string with_reltol(double reltol) {
  std::string s = kRectifier;
  s.replace(s.find("{reltol}"), 8, std::to_string(reltol));
  return s;
}

// The global error of v(out) at every accepted point stays below 10·RELTOL of the signal's
// scale (10 V), and falls with RELTOL: 100 times smaller RELTOL, at least 10 times smaller error.
TEST(Adaptive, RectifierErrorFallsWithReltol) {
  circuit::TransientOptions fine;
  fine.h = 0.1e-6;
  const Waveforms ref = simulate(with_reltol(1e-3), fine);
  ASSERT_TRUE(ref.result.ok()) << ref.result.summary.message;
  const auto v_ref = ref.series("v(out)");
  double errors[2] = {0, 0};
  const double reltols[2] = {1e-3, 1e-5};
  for (int k = 0; k < 2; ++k) {
    const Waveforms a = simulate(with_reltol(reltols[k]), adaptive());
    ASSERT_TRUE(a.result.ok()) << a.result.summary.message;
    EXPECT_LT(a.result.stats.steps, 600000 / 100) << "far fewer steps than the reference";
    const auto v = a.series("v(out)");
    for (size_t i = 0; i < a.t.size(); ++i)
      errors[k] = std::max(errors[k], std::abs(v[i] - at_time(ref, v_ref, a.t[i])));
    EXPECT_LT(errors[k], 10 * reltols[k] * 10.0) << "RELTOL " << reltols[k];
  }
  EXPECT_LT(errors[1], errors[0] / 10) << errors[0] << " " << errors[1];
}

// A four-stage Cockcroft–Walton multiplier driven at 100 MHz with TSTEP a half period: the
// fixed step at TSTEP is far off, the adaptive run within 0.5 % of the converged output.
TEST(Adaptive, MultiplierAt100MHzMatchesTheConvergedReference) {
  std::string text =
      "cw\nV1 in 0 SIN(0 1 100meg)\nC1 in n1 10p\nD1 0 n1 DI\nC2 0 n2 10p\nD2 n1 n2 DI\n"
      "C3 n1 n3 10p\nD3 n2 n3 DI\nC4 n2 n4 10p\nD4 n3 n4 DI\nC5 n3 n5 10p\nD5 n4 n5 DI\n"
      "C6 n4 n6 10p\nD6 n5 n6 DI\nC7 n5 n7 10p\nD7 n6 n7 DI\nC8 n6 n8 10p\nD8 n7 n8 DI\n"
      "RL n8 0 100k\n.model DI D\n.tran 5n 3u\n.end\n";
  circuit::TransientOptions fine;
  fine.h = 0.05e-9;
  const Waveforms ref = simulate(text, fine);
  ASSERT_TRUE(ref.result.ok()) << ref.result.summary.message;
  const double v_ref = ref.series("v(n8)").back();
  const Waveforms a = simulate(text, adaptive());
  ASSERT_TRUE(a.result.ok()) << a.result.summary.message;
  EXPECT_NEAR(a.series("v(n8)").back(), v_ref, 5e-3 * v_ref);
  EXPECT_GT(a.result.stats.located_events, 100);
  const Waveforms coarse = simulate_fixed(text);  // h = TSTEP = 5 ns
  ASSERT_TRUE(coarse.result.ok()) << coarse.result.summary.message;
  EXPECT_GT(std::abs(coarse.series("v(n8)").back() - v_ref), 0.05 * v_ref)
      << "the case discriminates: the fixed step at TSTEP is wrong";
}

// The maximum and the time average of signal `name` over [from, to] (the rows inside it,
// trapezoidal rule).
struct WindowFigures {
  double max = -1e300, avg = 0;
};
WindowFigures window(const Waveforms& r, const std::string& name, double from, double to) {
  const auto v = r.series(name);
  WindowFigures f;
  double area = 0, t0 = -1, t1 = 0;
  for (size_t k = 0; k < v.size(); ++k) {
    if (r.t[k] < from || r.t[k] > to) continue;
    f.max = std::max(f.max, v[k]);
    if (t0 < 0) {
      t0 = r.t[k];
    } else {
      area += 0.5 * (v[k] + v[k - 1]) * (r.t[k] - r.t[k - 1]);
    }
    t1 = r.t[k];
  }
  f.avg = area / (t1 - t0);
  return f;
}

circuit::TransientOptions event_mode() {
  circuit::TransientOptions o;
  o.method = circuit::TranMethod::kEvent;
  return o;
}

// The same netlist by the event mode (the reference, with its dense rows), the default
// error-controlled steps, and the fixed step at TSTEP.
struct ThreeRuns {
  Waveforms ref, adaptive, fixed;
  bool ok = false;
  std::string error;
};
ThreeRuns run_three(const std::string& text) {
  ThreeRuns r;
  r.ref = simulate(text, event_mode(), true);
  r.adaptive = simulate(text);
  r.fixed = simulate_fixed(text);
  r.ok = true;
  for (const Waveforms* w : {&r.ref, &r.adaptive, &r.fixed})
    if (!w->result.ok()) {
      r.ok = false;
      r.error += w->result.summary.message + "\n";
    }
  return r;
}

// A buck-boost in discontinuous conduction, `.tran 1u 4m` at 100 kHz: the output average and
// the inductor's peak current over the last 0.5 ms within 0.5 % of the event-driven reference
// (measured 0.003 % and 0.0002 %); the fixed step at TSTEP is 4.6 % off (the case discriminates).
TEST(Adaptive, DcmBuckBoostWithTstepATenthOfThePeriod) {
  const std::string text =
      "* DCM buck-boost\nVin in 0 12\nVg g 0 PULSE(0 5 0 1n 1n 3.999u 10u)\nS1 in sw g 0 SW1\n"
      "L1 sw 0 10u\nD1 out sw DI\nC1 out 0 100u\nR1 out 0 50\n"
      ".model SW1 SW(VT=2.5 VH=0.1 RON=1m ROFF=1e9)\n.model DI D\n.tran 1u 4m\n.end\n";
  const ThreeRuns runs = run_three(text);
  ASSERT_TRUE(runs.ok) << runs.error;
  const Waveforms &ref = runs.ref, &a = runs.adaptive, &fixed = runs.fixed;
  const auto v_ref = window(ref, "v(out)", 3.5e-3, 4e-3),
             i_ref = window(ref, "i(l1)", 3.5e-3, 4e-3);
  EXPECT_NEAR(window(a, "v(out)", 3.5e-3, 4e-3).avg, v_ref.avg, 5e-3 * std::abs(v_ref.avg));
  EXPECT_NEAR(window(a, "i(l1)", 3.5e-3, 4e-3).max, i_ref.max, 5e-3 * i_ref.max);
  EXPECT_GT(std::abs(window(fixed, "v(out)", 3.5e-3, 4e-3).avg - v_ref.avg),
            0.02 * std::abs(v_ref.avg));
}

// A flyback with a 1 % leakage inductance ringing against the drain capacitance (11 MHz) after
// every turn-off, `.tran 1u 1m`: the drain's peak (the switch stress) within 0.5 % of the
// event-driven reference (measured 0.002 %); the output average over the last 0.2 ms, still
// rising, within 1 % (measured 0.52 % at RELTOL 1e-3, 0.07 % at 1e-4 on 0.5 ms runs); the fixed
// step at TSTEP misses the peak by far.
TEST(Adaptive, FlybackDrainPeakWithTstepATenthOfThePeriod) {
  const std::string text =
      "* flyback\nVin in 0 24\nVg g 0 PULSE(0 10 0 10n 10n 4u 10u)\nLp in d 100u\nLs 0 s 25u\n"
      "K1 Lp Ls 0.99\nS1 d 0 g 0 SWM\nCds d 0 100p\nD1 s out DI\nCo out 0 100u\nRL out 0 10\n"
      ".model SWM SW(VT=5 VH=0.5 RON=10m ROFF=1e8)\n.model DI D\n.tran 1u 1m\n.end\n";
  const ThreeRuns runs = run_three(text);
  ASSERT_TRUE(runs.ok) << runs.error;
  const Waveforms &ref = runs.ref, &a = runs.adaptive, &fixed = runs.fixed;
  const double peak_ref = window(ref, "v(d)", 0.8e-3, 1e-3).max;
  const double avg_ref = window(ref, "v(out)", 0.8e-3, 1e-3).avg;
  EXPECT_NEAR(window(a, "v(d)", 0.8e-3, 1e-3).max, peak_ref, 5e-3 * peak_ref);
  EXPECT_NEAR(window(a, "v(out)", 0.8e-3, 1e-3).avg, avg_ref, 1e-2 * avg_ref);
  EXPECT_LT(window(fixed, "v(d)", 0.8e-3, 1e-3).max, 0.5 * peak_ref);
}

// The event-driven mode's file (its accepted points plus its dense output every TSTEP, no
// --grid) gives a half-wave rectifier's peak and average within 0.2 % of the converged
// fixed-step reference.
TEST(Adaptive, EventModeFileHoldsPeakAndAverage) {
  const std::string text =
      "half-wave\nV1 in 0 SIN(0 10 1k)\nD1 in out DI\nC1 out 0 1u\nR1 out 0 1k\n.model DI D\n"
      ".tran 50u 3m\n.end\n";
  circuit::TransientOptions fine;
  fine.h = 0.01e-6;
  const Waveforms ref = simulate(text, fine);
  const Waveforms e = simulate(text, event_mode(), true);
  ASSERT_TRUE(ref.result.ok()) << ref.result.summary.message;
  ASSERT_TRUE(e.result.ok()) << e.result.summary.message;
  const auto stats = [](const Waveforms& r) {
    const auto v = r.series("v(out)");
    double peak = 0, area = 0;
    for (size_t k = 0; k < v.size(); ++k) {
      peak = std::max(peak, v[k]);
      if (k > 0) area += 0.5 * (v[k] + v[k - 1]) * (r.t[k] - r.t[k - 1]);
    }
    return std::pair{peak, area / (r.t.back() - r.t.front())};
  };
  const auto [peak_ref, avg_ref] = stats(ref);
  const auto [peak, avg] = stats(e);
  EXPECT_NEAR(peak, peak_ref, 2e-3 * peak_ref) << e.t.size() << " rows";
  EXPECT_NEAR(avg, avg_ref, 2e-3 * avg_ref) << e.t.size() << " rows";
}

// State jumps are reported where a state jumps, and only there: AB08 (d)'s inductor current,
// inconsistent with its blocking diode at t = 0, jumps in the first step; the buck's switching
// instants (located crossings whose interpolated state leaves a rounding-level residue for the
// next step) are not jumps.
TEST(Adaptive, StateJumpsReportedOnlyWhereAStateJumps) {
  const Waveforms d = simulate(
      "AB08 (d)\nC1 n1 0 0.025330295910584444 IC=39.47841760435743\nR1 n1 0 10\n"
      "L1 n2 n1 1 IC=-1\nD1 0 n2 DI\n.model DI D\n.tran 5m 0.5 UIC\n.end\n");
  ASSERT_TRUE(d.result.ok()) << d.result.summary.message;
  ASSERT_EQ(d.result.stats.impulse_times.size(), 1u);
  EXPECT_LT(d.result.stats.impulse_times.front(), 1e-3);
  const Waveforms buck = simulate(read_example("buck.cir"));
  ASSERT_TRUE(buck.result.ok()) << buck.result.summary.message;
  EXPECT_GT(buck.result.stats.located_events, 100);
  EXPECT_TRUE(buck.result.stats.impulse_times.empty())
      << buck.result.stats.impulse_times.size() << " reported, first at "
      << buck.result.stats.impulse_times.front();
}

// The time average of `name` over [t0, t1] (trapezoidal over the accepted points).
double average(const Waveforms& r, const std::string& name, double t0, double t1) {
  const auto v = r.series(name);
  double area = 0;
  for (size_t k = 1; k < r.t.size(); ++k) {
    const double a = std::max(r.t[k - 1], t0), b = std::min(r.t[k], t1);
    if (b > a) area += (b - a) * 0.5 * (at_time(r, v, a) + at_time(r, v, b));
  }
  return area / (t1 - t0);
}

// The error norm's rounding floor (step_control.hpp): in both BJT stages the current of the
// input source through its 10 µF coupling capacitor is, at the first steps' picoseconds, a
// difference of volt-sized node voltages over the step, rounding noise of nA against ABSTOL's
// 1 pA. That noise is not error: no step is taken at the floor step above tolerance, and the
// figures are those of the run whose ABSTOL (1 nA) sits above the noise.
TEST(Adaptive, RoundingNoiseOfACouplingCapacitorIsNotError) {
  for (const char* name : {"spice_bjt_amplifier.cir", "spice_bjt_ce_bypassed.cir"}) {
    SCOPED_TRACE(name);
    std::string text = read_example(name);
    const Waveforms r = simulate(text);
    ASSERT_TRUE(r.result.ok()) << r.result.summary.message;
    EXPECT_EQ(r.result.stats.floor_steps, 0);
    EXPECT_GT(r.result.stats.rounding_steps, 0);  // the floor acted, and the report says so
    EXPECT_LT(r.result.stats.rejected_steps, 50);
    text.insert(text.rfind(".end"), ".options abstol=1e-9\n");
    const Waveforms loose = simulate(text);
    ASSERT_TRUE(loose.result.ok()) << loose.result.summary.message;
    EXPECT_EQ(loose.result.stats.floor_steps, 0);
    for (const char* signal : {"v(c)", "v(e)"}) {
      const double a = average(r, signal, 10e-3, 20e-3), b = average(loose, signal, 10e-3, 20e-3);
      EXPECT_NEAR(a, b, 1e-5 * std::abs(b)) << signal;
    }
  }
}

// A 50 Ω line into a 2 pF node clamped to 0 and 1 V by ideal diodes, driven by 100 ps edges:
// the clamps let go at instants (50 ps, 2.14 ns, ...) that fall on TSTEP points. Each such instant
// is located a rounding away before its TSTEP point, and the phase's first step ends on that
// point: a step of 1.6e-19 s. Two defects met there:
//  * its backward-Euler substeps shared the solver of a step size 0.8 % away (the solvers' key
//    was θh in units of 2^-30 of the first step): W = G + E/(θh') against a right-hand side
//    q/(θh) put (θh/θh' − 1)·q/(θh) into the clamp's current, 866 A at 7.14 ns on a circuit whose
//    currents are at most 0.1 A (the step's right-hand side now uses the solver's own θh);
//  * the sliver became the phase's first step, and through it the first step after every later
//    instant, which then doubled up from 8e-19 s: 1344 steps, the run "inaccurate" at the floor.
// Closed form while the clamps conduct: i(d1) = (v(in) − 1)/50 ≤ 0.08 A, i(d2) = −v(in)/50 ≤
// 0.1 A; v(a) stays within [0, 1] V.
TEST(Adaptive, InstantsOnTstepPointsAndSliverSteps) {
  const std::string deck =
      "t\nV1 in 0 PULSE(-5 5 0 100p 100p 2n 5n)\nR1 in a 50\nC1 a 0 2p\nD1 a b DX\nV2 b 0 1\n"
      "D2 0 a DX\n.model DX D\n.tran 10p 50n\n.end\n";
  const Waveforms r = simulate(deck, {}, true);
  ASSERT_TRUE(r.result.ok()) << r.result.summary.message;
  EXPECT_EQ(r.result.stats.floor_steps, 0);
  EXPECT_LT(r.result.stats.steps, 600) << "1344 when a sliver set the steps after each instant";
  const auto v_in = r.series("v(in)"), v_a = r.series("v(a)");
  const auto i1 = r.series("i(d1)"), i2 = r.series("i(d2)");
  for (size_t k = 0; k < r.t.size(); ++k) {
    EXPECT_LE(std::abs(i1[k]), 0.08 + 1e-9) << "t = " << r.t[k];
    EXPECT_LE(std::abs(i2[k]), 0.1 + 1e-9) << "t = " << r.t[k];
    EXPECT_GE(v_a[k], -1e-9) << "t = " << r.t[k];
    EXPECT_LE(v_a[k], 1 + 1e-9) << "t = " << r.t[k];
    if (i1[k] > 1e-6) {
      EXPECT_NEAR(i1[k], (v_in[k] - 1) / 50, 1e-9) << "t = " << r.t[k];
    }
    if (i2[k] > 1e-6) {
      EXPECT_NEAR(i2[k], -v_in[k] / 50, 1e-9) << "t = " << r.t[k];
    }
  }
}

// A comparator (B source) whose output drives an ideal switch: at the located instant where
// the comparator flips, its output jumps and the switch's control with it; the switch flipped a
// step later (5–14 µs of a 100 µs PWM period: a full-bridge inverter's load current 3 % high).
// Closed form: the carrier crosses 0.3 V at 32.5 µs (rising: the switch opens) and 67.501 µs
// (falling: it closes) of each period; v(a) follows at once.
TEST(Adaptive, SwitchFollowsAComparatorAtItsInstant) {
  const std::string deck =
      "t\nVTRI tri 0 PULSE(-1 1 0 50u 50u 1n 100u)\nBA ga 0 V=if(0.3>V(tri),5,0)\n"
      "VDC p 0 10\nS1 p a ga 0 SWM\nD1 0 a DF\nRL a c 1\nLL c 0 1m\n"
      ".model SWM SW(VT=2.5 VH=0.1 RON=10m ROFF=1e8)\n.model DF D\n.tran 10u 500u\n.end\n";
  const Waveforms r = simulate(deck, {}, true);
  ASSERT_TRUE(r.result.ok()) << r.result.summary.message;
  const auto v_a = r.series("v(a)");
  int checked = 0;
  for (size_t k = 0; k < r.t.size(); ++k) {
    const double u = std::fmod(r.t[k], 100e-6);
    // Strictly inside each state (the instant's own point holds the values before it).
    if (u > 32.5e-6 + 1e-9 && u < 67.501e-6 - 1e-9) {
      EXPECT_LT(v_a[k], 0.1) << "t = " << r.t[k] << ": the switch should be open";
      ++checked;
    } else if ((u > 1e-9 && u < 32.5e-6 - 1e-9) || u > 67.501e-6 + 1e-9) {
      EXPECT_GT(v_a[k], 9.0) << "t = " << r.t[k] << ": the switch should be closed";
      ++checked;
    }
  }
  EXPECT_GT(checked, 100);
}

}  // namespace
}  // namespace nsspice::testing
