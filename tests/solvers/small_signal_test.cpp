// solvers::SmallSignal on hand-built MLCS: the phasor system of a frozen mode, its singular
// frequencies and its residual.
#include "solvers/time/small_signal.hpp"

#include <gtest/gtest.h>

#include <complex>

namespace nsspice::solvers {
namespace {

using cd = std::complex<double>;

SparseMatrix sparse(int rows, int cols, std::vector<Eigen::Triplet<double, int>> t) {
  SparseMatrix m(rows, cols);
  m.setFromTriplets(t.begin(), t.end());
  m.makeCompressed();
  return m;
}

// Node 1 with a capacitor C to ground, a conductance g to ground and an ideal diode (pair 0)
// from node 1 to ground: E = C, G = g, B = [−1], C_pair = [−1] (w = −v1), D = 0.
Mlcs capacitor_node(double c, double g) {
  Mlcs m;
  m.n = 1;
  m.m = 1;
  m.E = sparse(1, 1, {{0, 0, c}});
  m.G = sparse(1, 1, g != 0 ? std::vector<Eigen::Triplet<double, int>>{{0, 0, g}}
                            : std::vector<Eigen::Triplet<double, int>>{});
  m.B = sparse(1, 1, {{0, 0, -1.0}});
  m.C = sparse(1, 1, {{0, 0, -1.0}});
  m.D = sparse(1, 1, {});
  m.C_off = sparse(1, 1, {});
  m.d = Eigen::VectorXd::Zero(1);
  return m;
}

TEST(SmallSignal, BlockingPairLeavesTheRcNode) {
  // Off: Λ = 0 and (g + jωC) X = U.
  SmallSignal s(capacitor_node(2e-6, 1e-3), {0});
  Eigen::VectorXcd u(1), x, lambda;
  u << cd(1e-3, 0);
  const double w = 1e3;
  ASSERT_TRUE(s.solve(w, u, x, lambda));
  EXPECT_LT(std::abs(x[0] - u[0] / cd(1e-3, w * 2e-6)), 1e-15);
  EXPECT_EQ(lambda[0], cd(0, 0));
  EXPECT_LT(s.residual(), 1e-15);
}

TEST(SmallSignal, ConductingPairShortsTheNode) {
  // On: w = −v1 = 0, so X = 0 and the whole injected current leaves through the pair: Λ = U.
  SmallSignal s(capacitor_node(2e-6, 1e-3), {1});
  Eigen::VectorXcd u(1), x, lambda;
  u << cd(0.5, -0.25);
  ASSERT_TRUE(s.solve(10, u, x, lambda));
  EXPECT_LT(std::abs(x[0]), 1e-15);
  EXPECT_LT(std::abs(lambda[0] - u[0]), 1e-15);
}

TEST(SmallSignal, SingularAtZeroFrequency) {
  // A node with only a capacitor: K = jωC is singular at ω = 0 and regular above.
  SmallSignal s(capacitor_node(1e-6, 0), {0});
  Eigen::VectorXcd u(1), x, lambda;
  u << cd(1, 0);
  EXPECT_FALSE(s.solve(0, u, x, lambda));
  ASSERT_TRUE(s.solve(1e6, u, x, lambda));
  EXPECT_LT(std::abs(x[0] - cd(0, -1)), 1e-14);
}

}  // namespace
}  // namespace nsspice::solvers
