// ErrorEstimator's rounding floor (step_control.hpp): the right side |E| ε peak/(θh) of ν, and the
// tolerances raised by the floor F, against hand-computed values.
#include "solvers/time/step_control.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace nsspice::solvers {
namespace {

// A 10 µF capacitor's node voltage (a state) and a source current (algebraic), as in a coupling
// capacitor driven by a source.
struct CouplingCap : ::testing::Test {
  SparseMatrix E{2, 2};
  Eigen::VectorXd atol{2};
  CouplingCap() {
    E.insert(0, 0) = -10e-6;  // (signs as in a KCL row: the right side takes |E|)
    E.makeCompressed();
    atol << 1e-6, 1e-12;  // VNTOL, ABSTOL
  }
};

TEST_F(CouplingCap, RoundingRightSideIsEpsilonTimesTheChargeOverThetaH) {
  ErrorEstimator est(E, atol, 1e-3);
  Eigen::VectorXd x(2);
  x << 1.5, -2e-3;
  est.restart(0, x);
  x << 1.2, 1e-3;  // peaks stay 1.5 V and 2 mA
  est.accept(1e-6, x);
  Eigen::VectorXd rhs;
  const double theta_h = 0.5e-12;
  const SparseMatrix e_abs = E.cwiseAbs();
  est.rounding_rhs(e_abs, theta_h, rhs);
  const double eps = std::numeric_limits<double>::epsilon();
  EXPECT_DOUBLE_EQ(rhs[0], 10e-6 * 1.5 * eps / theta_h);  // ≈ 6.7e-9 A
  EXPECT_EQ(rhs[1], 0.0);
}

TEST_F(CouplingCap, FloorRaisesTheToleranceOfTheNoisyUnknownOnly) {
  ErrorEstimator est(E, atol, 1e-3);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(2);
  est.restart(0, x);
  x << 1.5, 0.0;
  // A current error of 5 nA against ABSTOL 1 pA: err 5000 without a floor.
  Eigen::VectorXd delta(2);
  delta << 0.0, 5e-9;
  EXPECT_NEAR(est.norm(delta, x), 5e-9 / 1e-12, 1.0);
  // With a floor of 10 nA on the current it is rounding: err = 5e-9 / (1e-12 + 1e-8) < 1.
  Eigen::VectorXd floor(2);
  floor << 0.0, 1e-8;
  EXPECT_NEAR(est.norm(delta, x, &floor), 5e-9 / (1e-12 + 1e-8), 1e-12);
  // The floor of one unknown does not hide the error of another: a 1 mV error of the state
  // (tolerance RELTOL^{3/2} · 1.5 V + VNTOL ≈ 48 µV) stays above tolerance.
  delta << 1e-3, 5e-9;
  EXPECT_GT(est.norm(delta, x, &floor), 10.0);
}

}  // namespace
}  // namespace nsspice::solvers
