// LuRcond (solvers/linear/dense_rcond.hpp) against Eigen's PartialPivLU::rcond(), which it
// restates without temporaries: the same value to the bit, on well and badly conditioned,
// singular, scaled and structured matrices of orders 0 to 24, with one LuRcond reused across
// all of them (its workspace must not leak from one call into the next). And the estimate's
// meaning against a closed form: rcond = 1/κ₁ for a diagonal matrix.
#include "solvers/linear/dense_rcond.hpp"

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <Eigen/LU>
#include <cmath>
#include <random>
#include <vector>

namespace nsspice::solvers {
namespace {

// The matrices of one order: random, graded (columns scaled over 12 decades), nearly singular
// (a row repeated to 1e-13), exactly singular (a zero column), lower triangular with a growing
// diagonal, a permutation, and a symmetric positive definite one.
std::vector<Eigen::MatrixXd> family(int n, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  auto random = [&] {
    Eigen::MatrixXd a(n, n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) a(i, j) = u(rng);
    return a;
  };
  std::vector<Eigen::MatrixXd> out{random()};
  Eigen::MatrixXd graded = random();
  for (int j = 0; j < n; ++j) graded.col(j) *= std::pow(10.0, -12.0 * j / std::max(n - 1, 1));
  out.push_back(graded);
  if (n >= 2) {
    Eigen::MatrixXd near = random();
    near.row(1) = near.row(0) * (1 + 1e-13);
    out.push_back(near);
    Eigen::MatrixXd zero_col = random();
    zero_col.col(n / 2).setZero();
    out.push_back(zero_col);
  }
  Eigen::MatrixXd lower = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    lower(i, i) = 1.0 + i;
    for (int j = 0; j < i; ++j) lower(i, j) = u(rng);
  }
  out.push_back(lower);
  Eigen::MatrixXd perm = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i) perm(i, (i + 1) % std::max(n, 1)) = 1.0;
  out.push_back(perm);
  const Eigen::MatrixXd r = random();
  out.push_back(r * r.transpose() + Eigen::MatrixXd::Identity(n, n));
  return out;
}

TEST(LuRcond, EqualsEigensEstimateToTheBit) {
  std::mt19937 rng(20261126);
  LuRcond rcond;
  int compared = 0;
  for (int n = 0; n <= 24; ++n) {
    for (const Eigen::MatrixXd& a : family(n, rng)) {
      const Eigen::PartialPivLU<Eigen::MatrixXd> lu(a);
      const double expected = lu.rcond();
      const double got = rcond(lu, LuRcond::l1_norm(a));
      if (std::isnan(expected)) {
        EXPECT_TRUE(std::isnan(got)) << "n = " << n;
      } else {
        EXPECT_EQ(got, expected) << "n = " << n << "\n" << a;
      }
      ++compared;
    }
  }
  EXPECT_GT(compared, 150);
}

TEST(LuRcond, IsTheReciprocalConditionOfADiagonalMatrix) {
  // κ₁(diag(d)) = max|d| / min|d|, and the estimator is exact on diagonal matrices.
  LuRcond rcond;
  const Eigen::VectorXd d = (Eigen::VectorXd(5) << 3.0, -0.5, 2e-6, 7.0, 1.0).finished();
  const Eigen::MatrixXd a = d.asDiagonal();
  const Eigen::PartialPivLU<Eigen::MatrixXd> lu(a);
  EXPECT_NEAR(rcond(lu, LuRcond::l1_norm(a)), 2e-6 / 7.0, 1e-15 * 2e-6 / 7.0);
}

}  // namespace
}  // namespace nsspice::solvers
