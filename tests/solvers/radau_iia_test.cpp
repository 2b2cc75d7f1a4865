// Radau IIA on linear systems with known solutions: order 5 at step ends for an ODE and for an
// index-1 DAE, order 3 of the dense output, and exactness on polynomial forcing of degree ≤ 4.
#include "solvers/time/radau_iia.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace nsspice::solvers {
namespace {

SparseMatrix dense_to_sparse(const Eigen::MatrixXd& a) {
  SparseMatrix s = a.sparseView(0.0, 0.0);
  s.makeCompressed();
  return s;
}

// The harmonic oscillator y'' = −y as y1' = y2, y2' = −y1, and the same with an algebraic
// copy z = y1 (index 1): M = diag(1, 1, 0), J = [0 1 0; −1 0 0; 1 0 −1].
double oscillator_error(double h, bool with_algebraic, bool dense) {
  const int n = with_algebraic ? 3 : 2, out = with_algebraic ? 2 : 0;
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(n, n), j = Eigen::MatrixXd::Zero(n, n);
  m(0, 0) = m(1, 1) = 1;
  j(0, 1) = 1;
  j(1, 0) = -1;
  if (with_algebraic) {
    j(2, 0) = 1;
    j(2, 2) = -1;
  }
  RadauIIA radau(dense_to_sparse(m), dense_to_sparse(j));
  radau.set_j(dense_to_sparse(j), 0);
  Eigen::VectorXd z = Eigen::VectorXd::Zero(n);
  z[0] = 1;
  if (with_algebraic) z[2] = 1;
  const auto zero = [n](double, Eigen::VectorXd& f) { f = Eigen::VectorXd::Zero(n); };
  RadauStep step;
  double t = 0, err = 0;
  const int steps = static_cast<int>(std::lround(2.0 / h));
  Eigen::VectorXd u;
  for (int k = 0; k < steps; ++k) {
    EXPECT_TRUE(radau.step(t, h, z, zero, step));
    if (dense) {
      step.dense(0.37, u);
      err = std::max(err, std::abs(u[out] - std::cos(t + 0.37 * h)));
    }
    z = step.end();
    t += h;
  }
  return dense ? err : std::abs(z[out] - std::cos(t));
}

TEST(RadauIIA, OrderFiveAtStepEnds) {
  for (bool alg : {false, true}) {
    const double e1 = oscillator_error(0.2, alg, false), e2 = oscillator_error(0.1, alg, false);
    EXPECT_NEAR(std::log2(e1 / e2), 5.0, 0.3) << (alg ? "index-1 DAE" : "ODE");
  }
}

TEST(RadauIIA, DenseOutputIsOrderThreeLocally) {
  const double e1 = oscillator_error(0.2, false, true), e2 = oscillator_error(0.1, false, true);
  EXPECT_GT(std::log2(e1 / e2), 3.5);  // local error O(h^4) of the order-3 polynomial
  EXPECT_LT(e2, 1e-4);
}

TEST(RadauIIA, PolynomialForcingOfDegreeFourIsExact) {
  // y' = t^4: y(t) = t^5/5, to round-off (quadrature order 5).
  const SparseMatrix m = dense_to_sparse(Eigen::MatrixXd::Ones(1, 1));
  const SparseMatrix j = dense_to_sparse(Eigen::MatrixXd::Zero(1, 1));
  RadauIIA radau(m, j);
  radau.set_j(j, 0);
  Eigen::VectorXd z = Eigen::VectorXd::Zero(1);
  RadauStep step;
  const auto f = [](double t, Eigen::VectorXd& out) {
    out = Eigen::VectorXd::Constant(1, std::pow(t, 4));
  };
  double t = 0;
  for (int k = 0; k < 3; ++k, t += 0.5) {
    ASSERT_TRUE(radau.step(t, 0.5, z, f, step));
    z = step.end();
  }
  EXPECT_NEAR(z[0], std::pow(1.5, 5) / 5, 1e-13);
  EXPECT_EQ(radau.stats().factorizations, 1) << "one factorization per (J, h)";
}

TEST(RadauIIA, SingularPencilIsReported) {
  // M = 0, J = 0: no equation determines z.
  const SparseMatrix zero = dense_to_sparse(Eigen::MatrixXd::Zero(1, 1));
  const SparseMatrix pattern = dense_to_sparse(Eigen::MatrixXd::Ones(1, 1));
  RadauIIA radau(zero, pattern);
  SparseMatrix j = pattern * 0.0;
  radau.set_j(j, 0);
  RadauStep step;
  const auto f = [](double, Eigen::VectorXd& out) { out = Eigen::VectorXd::Zero(1); };
  EXPECT_FALSE(radau.step(0, 0.1, Eigen::VectorXd::Zero(1), f, step));
}

}  // namespace
}  // namespace nsspice::solvers
