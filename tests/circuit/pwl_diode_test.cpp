// Breakpoint placement of circuit/pwl_diode.hpp (and of circuit/pwl_mos.hpp, at the end): the
// PWL branch against the analytic one within the stated tolerance over the current range, and
// the segment count as the tolerance tightens.
#include "circuit/pwl_diode.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "circuit/pwl_mos.hpp"

namespace nsspice::circuit {
namespace {

// 1N4007-like forward branch: IS = 7.03 nA, N = 1.81, RS = 34 mΩ.
ExpBranch forward_1n4007() { return {0, 7.03e-9, 1, 1.81 * kThermalVoltage, 0.034}; }

// Every sampled current of [imin, imax] (log grid, knots included) within tol(v(i)).
void expect_within_tolerance(const PwlFit& fit, const ExpBranch& b, const PwlTolerance& tol) {
  std::vector<double> currents = fit.knots;
  const int n = 3000;
  for (int s = 0; s < n; ++s)
    currents.push_back(fit.imin * std::pow(fit.imax / fit.imin, s / (n - 1.0)));
  for (double i : currents) {
    const double exact = b.voltage(i), pwl = fit.curve.voltage(i);
    ASSERT_LE(std::abs(pwl - exact), tol.at(exact) * (1 + 1e-9))
        << "i = " << i << " A: v = " << exact << " V, PWL " << pwl << " V";
  }
}

// ngspice's CONSTKoverQ·300.15 K (CONSTboltz = 1.38064852e-23, CHARGE = 1.6021766208e-19).
TEST(PwlDiode, ThermalVoltageAt27C) { EXPECT_NEAR(kThermalVoltage, 0.02586492, 1e-8); }

TEST(PwlDiode, ForwardBranchWithinTheToleranceOverTheRange) {
  const ExpBranch b = forward_1n4007();
  const PwlTolerance tol;  // max(1 % of the drop, 10 mV)
  const PwlFit fit = fit_pwl_branch(b, 1e-6, 30, tol);
  EXPECT_FALSE(fit.capped);
  expect_within_tolerance(fit, b, tol);
  EXPECT_GT(fit.max_error, 0.5 * tol.abs) << "the error is centred, so it uses the band";
  EXPECT_EQ(fit.curve.segments.size() + 1, fit.knots.size());
  // The pair form is the chords: convex (positive r_k, increasing V_k) and through the knots.
  for (size_t k = 0; k < fit.curve.segments.size(); ++k) {
    EXPECT_GT(fit.curve.segments[k].resistance, 0);
    if (k > 0) {
      EXPECT_GT(fit.curve.segments[k].threshold, fit.curve.segments[k - 1].threshold);
    }
  }
  for (double i : fit.knots) EXPECT_NEAR(fit.curve.voltage(i), b.voltage(i) + fit.shift, 1e-9) << i;
  // Current as a function of voltage: the inverse of voltage(i).
  for (double i : {3e-6, 1e-3, 0.5, 20.0})
    EXPECT_NEAR(fit.curve.current(fit.curve.voltage(i)), i, 1e-9 * (1 + i));
}

TEST(PwlDiode, SegmentCountGrowsAsTheToleranceTightens) {
  const ExpBranch b = forward_1n4007();
  size_t previous = 0;
  for (double abs : {0.04, 0.02, 0.01, 0.005, 0.002}) {
    const PwlTolerance tol{0, abs};
    const PwlFit fit = fit_pwl_branch(b, 1e-6, 30, tol);
    expect_within_tolerance(fit, b, tol);
    EXPECT_GT(fit.curve.segments.size(), previous) << "tolerance " << abs;
    previous = fit.curve.segments.size();
  }
  // A chord of n·Vt·ln over a current ratio ρ errs by about n·Vt·(ln ln ρ ... ) ∝ (ln ρ)²/8 for
  // small ln ρ: halving the tolerance multiplies the count by about √2 at tight tolerances.
  const auto count = [&](double abs) {
    return static_cast<double>(fit_pwl_branch(b, 1e-6, 1e-2, {0, abs}).curve.segments.size());
  };
  EXPECT_NEAR(count(0.0005) / count(0.002), 2.0, 0.35);
}

TEST(PwlDiode, ReverseBreakdownBranch) {
  // Zener-like: BV = 6.2 V at IBV = 1 mA, NBV = 1.5, RS = 1 Ω; reverse currents 1 µA .. 1 A.
  const ExpBranch b{6.2, 1e-3, 0, 1.5 * kThermalVoltage, 1.0};
  const PwlTolerance tol;  // 1 % of 6.2 V = 62 mV dominates
  const PwlFit fit = fit_pwl_branch(b, 1e-6, 1, tol);
  expect_within_tolerance(fit, b, tol);
  EXPECT_NEAR(b.voltage(1e-3), 6.2 + 1e-3, 1e-12);
  EXPECT_LE(fit.curve.segments.size(), 4u) << "a wide band: few segments";
}

TEST(PwlDiode, SeriesResistanceDominatedBranchNeedsFewSegments) {
  const ExpBranch b{0, 1e-14, 1, kThermalVoltage, 10.0};  // 10 Ω: straight above ~10 mA
  const PwlFit wide = fit_pwl_branch(b, 1e-4, 10, {});
  const PwlFit no_rs = fit_pwl_branch({0, 1e-14, 1, kThermalVoltage, 0}, 1e-4, 10, {});
  EXPECT_LE(wide.curve.segments.size(), 4u);
  EXPECT_LT(wide.curve.segments.size(), no_rs.curve.segments.size());
  expect_within_tolerance(wide, b, {});
}

TEST(PwlDiode, SegmentCapIsReported) {
  const PwlFit fit = fit_pwl_branch(forward_1n4007(), 1e-9, 100, {0, 1e-4}, 5);
  EXPECT_TRUE(fit.capped);
  EXPECT_EQ(fit.curve.segments.size(), 5u);
  EXPECT_GT(fit.max_error, 1e-4);
}

// ngspice's forward extras: ISR/NR with the generation factor, and IKF. v(i) inverts i(v),
// v'(i) is its derivative, and the fit meets the tolerance with a convex pair form.
TEST(PwlDiode, RecombinationAndHighInjectionBranches) {
  ExpBranch zener{0, 3.2e-17, 1, kThermalVoltage, 1.1};
  zener.isr = 2.4e-9, zener.nrvt = 2 * kThermalVoltage, zener.vj = 0.75, zener.m = 0.33;
  ExpBranch knee{0, 2.55e-9, 1, 1.75 * kThermalVoltage, 0.042};
  knee.ikf = 0.5;
  for (const ExpBranch& b : {zener, knee}) {
    for (double i : {1e-6, 1e-3, 0.3, 5.0}) {
      const double v = b.voltage(i), vj = v - b.rs * i;
      EXPECT_NEAR(b.junction_current(vj), i, 1e-9 * i) << i;
      const double h = 1e-4 * i;
      EXPECT_NEAR(b.slope(i), (b.voltage(i + h) - b.voltage(i - h)) / (2 * h), 1e-4 * b.slope(i));
    }
    const PwlTolerance tol;
    const PwlFit fit = fit_pwl_branch(b, 1e-6, 10, tol);
    EXPECT_FALSE(fit.capped);
    expect_within_tolerance(fit, b, tol);
    for (const PwlSegment& s : fit.curve.segments) EXPECT_GT(s.resistance, 0) << "convex";
  }
  // IKF: at currents well above it the junction law is e^{v/(2n·Vt)}: the drop per decade
  // doubles, 2·n·Vt·ln 10.
  ExpBranch far = knee;
  far.rs = 0;
  EXPECT_NEAR(far.voltage(500) - far.voltage(50), 2 * 1.75 * kThermalVoltage * std::log(10.0),
              0.01);
}

TEST(PwlDiode, IdealCurveHasZeroVoltage) { EXPECT_EQ(PwlCurve{}.voltage(1.0), 0.0); }

// The bias knot (fit_pwl_branch_at_bias): the same voltage bound, convex pair form, and at the
// bias current the PWL passes through v(i_b) with the tangent's slope v'(i_b), for forward and
// breakdown branches and biases across the range. The chord fit's slope there is not.
TEST(PwlDiode, BiasKnotIsTheTangentWithinTheBound) {
  const ExpBranch forward = forward_1n4007();
  const ExpBranch zener{6.2, 1e-3, 0, 1.5 * kThermalVoltage, 1.0};
  for (const ExpBranch& b : {forward, zener}) {
    for (double bias : {2e-6, 1e-4, 8.19e-4, 0.03, 5.0}) {
      const PwlTolerance tol;
      const PwlFit fit = fit_pwl_branch_at_bias(b, 1e-6, 30, tol, bias);
      SCOPED_TRACE(bias);
      EXPECT_FALSE(fit.capped);
      expect_within_tolerance(fit, b, tol);
      EXPECT_NEAR(fit.curve.voltage(bias), b.voltage(bias), 1e-9);
      const ActiveSegment at = active_segment(fit.curve, bias);
      EXPECT_NEAR(at.resistance, b.slope(bias), 1e-9 * b.slope(bias));
      EXPECT_LT(fit.bias_lo, bias);
      EXPECT_GT(fit.bias_hi, bias);
      EXPECT_EQ(active_segment(fit.curve, fit.bias_lo * 1.001).index, at.index);
      EXPECT_EQ(active_segment(fit.curve, fit.bias_hi * 0.999).index, at.index);
      for (size_t k = 0; k < fit.curve.segments.size(); ++k) {
        EXPECT_GT(fit.curve.segments[k].resistance, 0);
        if (k > 0) {
          EXPECT_GT(fit.curve.segments[k].threshold, fit.curve.segments[k - 1].threshold);
        }
      }
      // At most two segments more than the chord fit (the tangent splits one chord's span).
      EXPECT_LE(fit.curve.segments.size(),
                fit_pwl_branch(b, 1e-6, 30, tol).curve.segments.size() + 2);
    }
  }
  // The chord fit's incremental resistance at a bias differs from v'(i_b) by tens of %.
  const PwlFit chords = fit_pwl_branch(forward, 1e-6, 30, {});
  double worst = 0;
  for (double bias : {1e-5, 1e-4, 1e-3, 1e-2})
    worst = std::max(
        worst, std::abs(active_segment(chords.curve, bias).resistance / forward.slope(bias) - 1));
  EXPECT_GT(worst, 0.3);
  // Outside (imin, imax) the bias is ignored: the chord fit.
  EXPECT_EQ(fit_pwl_branch_at_bias(forward, 1e-6, 30, {}, 1e-7).curve.segments.size(),
            chords.curve.segments.size());
}

}  // namespace
}  // namespace nsspice::circuit

// The MOSFET's square law (circuit/pwl_mos.hpp): secant knots for a gate-voltage error.
namespace nsspice::circuit {
namespace {

// The tolerance at a gate-source voltage v_gs = VT + x: tol·max(1, v_gs/1 V), for a zero and a
// power MOSFET's threshold; the higher VT, the fewer knots.
TEST(PwlMos, SquareLawKnotsMeetTheGateVoltageTolerance) {
  for (double vt : {0.0, 3.8}) {
    size_t previous = 0;
    for (double tol : {0.05, 0.01, 0.002}) {
      const auto x = square_law_knots(tol, 10, vt);
      EXPECT_EQ(x.front(), 0.0);
      EXPECT_GE(x.back(), 10.0);
      for (size_t k = 1; k < x.size(); ++k) {
        const double a = x[k - 1], b = x[k], t = tol * std::max(1.0, vt + a);
        EXPECT_NEAR(square_chord_voltage_error(a, b), t, 1e-12);
        // Independent check: the chord's overdrive at a given x² against √(x²), sampled.
        double worst = 0;
        for (int s = 0; s <= 200; ++s) {
          const double xs = a + (b - a) * s / 200, y = xs * xs;
          worst = std::max(worst, xs - (y + a * b) / (a + b));
        }
        EXPECT_LE(worst, t * (1 + 1e-9));
      }
      EXPECT_GT(x.size(), previous) << tol;
      previous = x.size();
    }
  }
  EXPECT_LT(square_law_knots(0.01, 10, 3.8).size(), square_law_knots(0.01, 10, 0).size());
}

// The bias knot of the square law: f(x0) = x0², slope 2·x0 around x0, and the horizontal error
// (the overdrive at a given f against √f) within tol·max(1, VT + x) over [0, xmax], sampled.
TEST(PwlMos, BiasKnotIsTheTangentWithinTheTolerance) {
  for (double vt : {1.0, 3.8})
    for (double x0 : {0.05, 0.5, 2.0, 7.0}) {
      const double tol = 0.01, xmax = 10;
      const SquareLawPairs f = square_law_with_tangent(tol, xmax, vt, x0);
      SCOPED_TRACE(x0);
      EXPECT_NEAR(f.value(x0), x0 * x0, 1e-12);
      const double h = 1e-6;
      EXPECT_NEAR((f.value(x0 + h) - f.value(x0 - h)) / (2 * h), 2 * x0, 1e-6);
      for (size_t i = 0; i < f.c.size(); ++i) {
        EXPECT_GT(f.c[i], 0) << "convex";
        if (i > 0) {
          EXPECT_GT(f.a[i], f.a[i - 1]);
        }
      }
      // Horizontal error: for the exact overdrive s, the PWL's overdrive at f = s² (bisection).
      for (int k = 1; k <= 400; ++k) {
        const double s = xmax * k / 400.0, y = s * s;
        double lo = 0, hi = 2 * xmax;
        for (int it = 0; it < 80; ++it) (f.value(0.5 * (lo + hi)) < y ? lo : hi) = 0.5 * (lo + hi);
        ASSERT_LE(std::abs(lo - s), tol * std::max(1.0, vt + s) * (1 + 1e-6)) << "s = " << s;
      }
    }
}

}  // namespace
}  // namespace nsspice::circuit
