// The closed-form SPICE charges of circuit/junction_charge.hpp against the numerical integral of
// their capacitances, the two-slope PWL charge against the charge it must move, and the
// temperature formulas of circuit/spice_temperature.hpp at TNOM and against values computed here
// from ngspice's expressions written out independently.
#include "circuit/junction_charge.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "circuit/spice_temperature.hpp"

namespace nsspice::circuit {
namespace {

// ∫_0^v C(u) du by the composite Simpson rule on 20000 intervals.
template <class Charge>
double integral(const Charge& q, double v) {
  const int n = 20000;
  const double h = v / n;
  double s = q.capacitance(0) + q.capacitance(v);
  for (int k = 1; k < n; ++k) s += (k % 2 ? 4 : 2) * q.capacitance(k * h);
  return s * h / 3;
}

TEST(JunctionCharge, DepletionChargeIsTheIntegralOfItsCapacitance) {
  const DepletionCharge q{15e-12, 0.5, 0.33, 0.5};
  for (double v : {-40.0, -5.0, -0.1, 0.1, 0.25, 0.4, 0.9}) {
    EXPECT_NEAR(q.charge(v), integral(q, v), 1e-9 * 15e-12 * (1 + std::abs(v))) << "v = " << v;
  }
  // SPICE's C(v) = CJO (1 − v/VJ)^(−M) below FC·VJ.
  EXPECT_NEAR(q.capacitance(-10), 15e-12 * std::pow(1 + 10 / 0.5, -0.33), 1e-24);
  EXPECT_NEAR(q.capacitance(0), 15e-12, 1e-24);
}

TEST(JunctionCharge, VdmosGateDrainChargeIsTheIntegralOfItsCapacitance) {
  const VdmosGateDrainCharge q{1.1e-9, 0.08e-9, 1.0};
  for (double v : {-34.0, -3.0, -0.2, 0.3, 2.0, 34.0}) {
    EXPECT_NEAR(q.charge(v), integral(q, v), 1e-9 * 1.1e-9 * (1 + std::abs(v))) << "v = " << v;
  }
  EXPECT_NEAR(q.capacitance(1e3), 1.1e-9, 1e-12) << "CGDMAX far above 0";
  EXPECT_NEAR(q.capacitance(-1e3), 0.08e-9, 1e-12) << "CGDMIN far below 0";
}

// The two-slope charge moves the charge of the nonlinear one from lo to the kink and from the
// kink to hi exactly, and its slopes order as the capacitance does (convex: C_lo ≤ C_hi).
TEST(JunctionCharge, TwoSlopeChargeMovesTheNonlinearChargeOverEachSide) {
  const DepletionCharge q{190e-12, 1.0, 0.3, 0.5};
  const PwlCharge p = two_slope(q, -24.0, 0.0, 0.35);
  EXPECT_NEAR(p.c_lo * 24.0, q.charge(0) - q.charge(-24), 1e-24);
  EXPECT_NEAR(p.c_hi() * 0.35, q.charge(0.35) - q.charge(0), 1e-24);
  EXPECT_LT(p.c_lo, 190e-12);
  EXPECT_GT(p.c_hi(), 190e-12);
  EXPECT_GT(p.excess(), 0);
  const PwlCharge linear = two_slope(q, -24.0, 0.0, 0.0);
  EXPECT_EQ(linear.excess(), 0) << "no forward side: one slope";
  // A forward side whose excess charge is below 1 % of the reverse side's: one slope over all.
  const PwlCharge small = two_slope(q, -24.0, 0.0, 0.05);
  EXPECT_EQ(small.excess(), 0);
  EXPECT_NEAR(small.c_lo * 24.05, q.charge(0.05) - q.charge(-24), 1e-24);
}

// The PWL charge c_lo·v + Σ dc_k·max(0, v − v_k) with its constant chosen so that it equals
// Q at the fit's lower end lo (the stamp has no constant: only dq/dt enters KCL).
double pwl_q(const PwlCharge& p, const DepletionCharge& q, double lo, double v) {
  const auto bare = [&](double u) {
    double c = p.c_lo * u;
    for (const PwlCharge::Knot& k : p.knots) c += k.dc * std::max(0.0, u - k.v);
    return c;
  };
  return bare(v) - bare(lo) + q.charge(lo);
}

// With a charge tolerance (.options pwlqtol) the reverse side gets knots: the PWL charge goes
// through Q at every knot (the charge moved between knots is SPICE's), stays within the tolerance
// between them (relative to the charge moved from 0, floored at CJO·1 V), every slope step is
// positive (convex), and the knot count grows as the tolerance tightens. Checked on a fine grid
// against the closed form for the three grading coefficients of common cards.
TEST(JunctionCharge, ChargeToleranceGivesConvexKnotsWithinIt) {
  for (const double m : {0.33, 0.5, 0.61}) {
    const DepletionCharge q{480e-12, 1.0, m, 0.5};
    std::size_t previous = 0;
    for (const double tol : {0.1, 0.03, 0.01}) {
      const PwlCharge p = pwl_charge(q, -34.0, 0.0, 0.106, tol);
      ASSERT_GE(p.knots.size(), 2u) << "m " << m << " tol " << tol;
      EXPECT_GT(p.knots.size(), previous) << "m " << m << " tol " << tol;
      previous = p.knots.size();
      for (const PwlCharge::Knot& k : p.knots) {
        EXPECT_GT(k.dc, 0) << "m " << m << " tol " << tol << " knot " << k.v;
        EXPECT_NEAR(pwl_q(p, q, -34.0, k.v), q.charge(k.v), 1e-9 * 480e-12)
            << "m " << m << " tol " << tol << " knot " << k.v;
      }
      EXPECT_NEAR(pwl_q(p, q, -34.0, 0.106), q.charge(0.106), 1e-9 * 480e-12);
      double worst = 0;
      for (int i = 1; i < 3400; ++i) {
        const double v = -34.0 * i / 3400.0;
        worst = std::max(worst, std::abs(pwl_q(p, q, -34.0, v) - q.charge(v)) /
                                    std::max(std::abs(q.charge(v)), q.capacitance(0) * 1.0));
      }
      // (1 % of slack: the placement samples each chord at 63 points, this grid finer)
      EXPECT_LE(worst, tol * 1.01) << "m " << m << " tol " << tol;
      EXPECT_GT(worst, tol * 0.2) << "m " << m << " tol " << tol << ": knots far too dense";
    }
  }
  // An infinite tolerance is the two-slope charge.
  const DepletionCharge q{190e-12, 1.0, 0.3, 0.5};
  const PwlCharge a = two_slope(q, -24.0, 0.0, 0.35);
  const PwlCharge b = pwl_charge(q, -24.0, 0.0, 0.35, std::numeric_limits<double>::infinity());
  ASSERT_EQ(a.knots.size(), 1u);
  ASSERT_EQ(b.knots.size(), 1u);
  EXPECT_EQ(a.c_lo, b.c_lo);
  EXPECT_EQ(a.knots[0].dc, b.knots[0].dc);
}

TEST(SpiceTemperature, AtTnomEveryValueIsTheModelsOwn) {
  EXPECT_DOUBLE_EQ(saturation_current_at(7.03e-9, 1.81, 1.11, 3, 300.15, 300.15), 7.03e-9);
  const Depletion d = depletion_at({15e-12, 0.5}, 0.33, 300.15, 300.15);
  EXPECT_NEAR(d.cjo, 15e-12, 1e-26);
  EXPECT_NEAR(d.vj, 0.5, 1e-12);
}

// ngspice dioTemp (TLEV 0) at 100 °C for IS = 7.03 nA, N = 1.81, EG = 1.11, XTI = 3, written out
// here: IS(T) = IS·exp((T/TNOM − 1)·EG/(N·k·T/q) + XTI/N·ln(T/TNOM)).
TEST(SpiceTemperature, SaturationCurrentAt100C) {
  const double k_over_q = 1.38064852e-23 / 1.6021766208e-19, t = 373.15, tnom = 300.15;
  const double expected = 7.03e-9 * std::exp((t / tnom - 1) * 1.11 / (1.81 * k_over_q * t) +
                                             3 / 1.81 * std::log(t / tnom));
  EXPECT_NEAR(saturation_current_at(7.03e-9, 1.81, 1.11, 3, t, tnom), expected, 1e-12 * expected);
  EXPECT_GT(expected / 7.03e-9, 50) << "a silicon junction's IS grows steeply with temperature";
  // The junction potential falls and the zero-bias capacitance rises with temperature.
  const Depletion d = depletion_at({15e-12, 0.5}, 0.33, t, tnom);
  EXPECT_LT(d.vj, 0.5);
  EXPECT_GT(d.cjo, 15e-12);
}

}  // namespace
}  // namespace nsspice::circuit
