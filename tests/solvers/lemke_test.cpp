// Tests for the dense lexicographic Lemke solver (solve_lemke) and lcp_residual.
// Acceptance: residual <= 1e-9 * scale, scale = max(1, ||q||_inf, ||M||_inf ||z||_inf).
#include "solvers/lcp/lemke.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace nsspice::solvers {
namespace {

double scale_of(const Eigen::MatrixXd& m, const Eigen::VectorXd& q, const Eigen::VectorXd& z) {
  const double m_inf = m.size() ? m.cwiseAbs().rowwise().sum().maxCoeff() : 0.0;
  return std::max({1.0, q.lpNorm<Eigen::Infinity>(), m_inf * z.lpNorm<Eigen::Infinity>()});
}

// Checks solution quality and that the reported basis is consistent: z nonbasic => z = 0,
// and the principal submatrix M[Z,Z] of the basic z indices is nonsingular.
void expect_solution(const Eigen::MatrixXd& m, const Eigen::VectorXd& q, const LcpResult& r) {
  ASSERT_EQ(r.status, LcpStatus::kSolved) << to_string(r.status);
  ASSERT_EQ(r.z.size(), q.size());
  ASSERT_EQ(r.z_basic.size(), static_cast<std::size_t>(q.size()));
  const double scale = scale_of(m, q, r.z);
  EXPECT_LE((r.w - (m * r.z + q)).lpNorm<Eigen::Infinity>(), 1e-12 * scale);
  EXPECT_LE(lcp_residual(r.z, r.w), 1e-9 * scale);
  EXPECT_DOUBLE_EQ(r.residual, lcp_residual(r.z, r.w));
  std::vector<int> basic;
  for (int j = 0; j < q.size(); ++j) {
    if (r.z_basic[static_cast<std::size_t>(j)]) {
      basic.push_back(j);
    } else {
      EXPECT_EQ(r.z[j], 0.0) << "nonbasic z_" << j;
    }
  }
  if (!basic.empty()) {
    const Eigen::MatrixXd m_zz = m(basic, basic);
    EXPECT_EQ(Eigen::FullPivLU<Eigen::MatrixXd>(m_zz).rank(), static_cast<int>(basic.size()));
  }
}

// All solutions of LCP(M, q) by enumerating the 2^n complementary bases (n <= 8).
std::vector<Eigen::VectorXd> brute_force(const Eigen::MatrixXd& m, const Eigen::VectorXd& q) {
  const int n = static_cast<int>(q.size());
  std::vector<Eigen::VectorXd> sols;
  for (unsigned mask = 0; mask < (1u << n); ++mask) {
    std::vector<int> idx;
    for (int j = 0; j < n; ++j) {
      if (mask & (1u << j)) idx.push_back(j);
    }
    Eigen::VectorXd z = Eigen::VectorXd::Zero(n);
    if (!idx.empty()) {
      Eigen::FullPivLU<Eigen::MatrixXd> lu(m(idx, idx));
      if (!lu.isInvertible()) continue;
      z(idx) = lu.solve(-q(idx));
    }
    const Eigen::VectorXd w = m * z + q;
    if (z.minCoeff() >= -1e-10 && w.minCoeff() >= -1e-10) sols.push_back(z);
  }
  return sols;
}

Eigen::MatrixXd random_normal(int rows, int cols, std::mt19937& gen) {
  std::normal_distribution<double> nd;
  Eigen::MatrixXd a(rows, cols);
  for (auto& v : a.reshaped()) v = nd(gen);
  return a;
}

TEST(Lemke, OneByOneHandSolved) {
  const Eigen::MatrixXd m = Eigen::MatrixXd::Constant(1, 1, 2.0);
  const LcpResult r = solve_lemke(m, Eigen::VectorXd::Constant(1, -4.0));
  expect_solution(m, Eigen::VectorXd::Constant(1, -4.0), r);
  EXPECT_DOUBLE_EQ(r.z[0], 2.0);
  EXPECT_DOUBLE_EQ(r.w[0], 0.0);
  EXPECT_EQ(r.z_basic[0], 1);
  EXPECT_EQ(r.pivots, 2);
}

TEST(Lemke, TwoByTwoHandSolved) {
  Eigen::MatrixXd m(2, 2);
  m << 2, 1, 1, 2;
  const Eigen::VectorXd q1 = Eigen::Vector2d(-5, -6);  // z = M^-1 (5, 6) = (4/3, 7/3)
  const LcpResult r1 = solve_lemke(m, q1);
  expect_solution(m, q1, r1);
  EXPECT_NEAR(r1.z[0], 4.0 / 3.0, 1e-14);
  EXPECT_NEAR(r1.z[1], 7.0 / 3.0, 1e-14);
  const Eigen::VectorXd q2 = Eigen::Vector2d(-1, 2);  // z = (1/2, 0), w = (0, 5/2)
  const LcpResult r2 = solve_lemke(m, q2);
  expect_solution(m, q2, r2);
  EXPECT_NEAR(r2.z[0], 0.5, 1e-15);
  EXPECT_EQ(r2.z[1], 0.0);
  EXPECT_NEAR(r2.w[1], 2.5, 1e-15);
  EXPECT_EQ(r2.z_basic, (std::vector<char>{1, 0}));
}

TEST(Lemke, NonnegativeQGivesZeroWithoutPivots) {
  Eigen::MatrixXd m(2, 2);
  m << -3, 7, 1, -2;
  const Eigen::VectorXd q = Eigen::Vector2d(0.0, 3.0);
  const LcpResult r = solve_lemke(m, q);
  expect_solution(m, q, r);
  EXPECT_EQ(r.z, Eigen::VectorXd::Zero(2));
  EXPECT_EQ(r.pivots, 0);
  EXPECT_EQ(r.z_basic, (std::vector<char>{0, 0}));
}

TEST(Lemke, RandomSpdPlusIdentityMatchesBruteForce) {
  for (const int n : {1, 2, 3, 5, 8, 13, 30, 60, 100, 200}) {
    for (unsigned seed = 0; seed < (n <= 8 ? 20u : 3u); ++seed) {
      std::mt19937 gen(1000 * n + seed);
      const Eigen::MatrixXd a = random_normal(n, n, gen);
      const Eigen::MatrixXd m = a * a.transpose() + Eigen::MatrixXd::Identity(n, n);
      const Eigen::VectorXd q = 3.0 * random_normal(n, 1, gen);
      const LcpResult r = solve_lemke(m, q);
      SCOPED_TRACE(testing::Message() << "n=" << n << " seed=" << seed);
      expect_solution(m, q, r);
      if (n <= 8) {
        const auto sols = brute_force(m, q);
        ASSERT_EQ(sols.size(), 1u);  // P-matrix: unique solution
        EXPECT_LE((sols[0] - r.z).lpNorm<Eigen::Infinity>(), 1e-9 * (1 + sols[0].norm()));
      }
    }
  }
}

TEST(Lemke, RandomDiagonallyDominantNonsymmetricMatchesBruteForce) {
  for (const int n : {1, 2, 4, 6, 8, 20, 50, 120, 200}) {
    for (unsigned seed = 0; seed < (n <= 8 ? 20u : 3u); ++seed) {
      std::mt19937 gen(7000 * n + seed);
      Eigen::MatrixXd m = random_normal(n, n, gen);
      for (int i = 0; i < n; ++i) {  // strictly row diagonally dominant, positive diagonal
        m(i, i) = m.row(i).cwiseAbs().sum() + 0.5;
      }
      const Eigen::VectorXd q = random_normal(n, 1, gen);
      const LcpResult r = solve_lemke(m, q);
      SCOPED_TRACE(testing::Message() << "n=" << n << " seed=" << seed);
      expect_solution(m, q, r);
      if (n <= 8) {
        const auto sols = brute_force(m, q);
        ASSERT_EQ(sols.size(), 1u);
        EXPECT_LE((sols[0] - r.z).lpNorm<Eigen::Infinity>(), 1e-9 * (1 + sols[0].norm()));
      }
    }
  }
}

TEST(Lemke, DegenerateRepeatedQEntries) {
  for (const int n : {2, 5, 12, 40}) {
    std::mt19937 gen(n);
    const Eigen::MatrixXd a = random_normal(n, n, gen);
    const Eigen::MatrixXd m = a * a.transpose() + Eigen::MatrixXd::Identity(n, n);
    const Eigen::VectorXd q = -Eigen::VectorXd::Ones(n);  // all ratios tie at the start
    expect_solution(m, q, solve_lemke(m, q));
    Eigen::VectorXd q0 = Eigen::VectorXd::Zero(n);  // degenerate: b has zeros after pivot 1
    q0[0] = -1;
    expect_solution(m, q0, solve_lemke(m, q0));
  }
}

TEST(Lemke, DegenerateIdenticalColumns) {
  const Eigen::MatrixXd m = Eigen::MatrixXd::Ones(2, 2);
  const Eigen::VectorXd q = -Eigen::VectorXd::Ones(2);
  const LcpResult r = solve_lemke(m, q);
  expect_solution(m, q, r);
  EXPECT_NEAR(r.z.sum(), 1.0, 1e-15);
}

// Singular PSD M = B^T B with small integer B (identical columns, many ties) and a
// feasible q built from a complementary pair: Lemke must find a solution (copositive-plus).
TEST(Lemke, DegenerateSingularPsdIntegerProblemsFinish) {
  std::uniform_int_distribution<int> small(-2, 2);
  std::uniform_int_distribution<int> pick(0, 2);
  for (unsigned seed = 0; seed < 200; ++seed) {
    std::mt19937 gen(seed);
    const int n = 2 + static_cast<int>(seed % 6);
    Eigen::MatrixXd b(2, n);
    for (auto& v : b.reshaped()) v = small(gen);
    b.col(n - 1) = b.col(0);  // identical columns
    const Eigen::MatrixXd m = b.transpose() * b;
    Eigen::VectorXd z = Eigen::VectorXd::Zero(n);
    Eigen::VectorXd w = Eigen::VectorXd::Zero(n);
    for (int j = 0; j < n; ++j) {
      const int p = pick(gen);  // 0: both zero (degenerate), 1: z_j > 0, 2: w_j > 0
      if (p == 1) z[j] = 1 + pick(gen);
      if (p == 2) w[j] = 1 + pick(gen);
    }
    const Eigen::VectorXd q = w - m * z;
    SCOPED_TRACE(testing::Message() << "seed=" << seed);
    expect_solution(m, q, solve_lemke(m, q));
  }
}

TEST(Lemke, InfeasibleProblemsReportRay) {
  const LcpResult r1 = solve_lemke(Eigen::MatrixXd::Constant(1, 1, -1.0),
                                   Eigen::VectorXd::Constant(1, -1.0));  // w = -z - 1 < 0
  EXPECT_EQ(r1.status, LcpStatus::kInfeasible);
  Eigen::MatrixXd skew(2, 2);
  skew << 0, 1, -1, 0;  // copositive-plus; w_2 = -z_1 - 1 < 0
  EXPECT_EQ(solve_lemke(skew, Eigen::Vector2d(1, -1)).status, LcpStatus::kInfeasible);
  Eigen::MatrixXd psd(2, 2);
  psd << 1, -1, -1, 1;  // PSD; w_1 + w_2 = -2 < 0 for every z
  const LcpResult r3 = solve_lemke(psd, Eigen::Vector2d(-1, -1));
  EXPECT_EQ(r3.status, LcpStatus::kInfeasible);
  EXPECT_LT(r3.pivots, 10);
}

TEST(Lemke, ZeroMatrix) {
  const Eigen::MatrixXd m = Eigen::MatrixXd::Zero(3, 3);
  const Eigen::VectorXd q_ok = Eigen::Vector3d(1, 0, 2);
  expect_solution(m, q_ok, solve_lemke(m, q_ok));
  EXPECT_EQ(solve_lemke(m, Eigen::Vector3d(1, -1, 2)).status, LcpStatus::kInfeasible);
}

// Murty (1978): M lower triangular, 1 on the diagonal and 2 below, q = -e. Lemke with
// covering vector e needs 2^n pivots (counting the initial z0 pivot); solution z = e_1.
TEST(Lemke, MurtyExponentialExampleN8Takes256Pivots) {
  const int n = 8;
  Eigen::MatrixXd m = Eigen::MatrixXd::Identity(n, n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < i; ++j) m(i, j) = 2.0;
  }
  const Eigen::VectorXd q = -Eigen::VectorXd::Ones(n);
  const LcpResult r = solve_lemke(m, q);
  expect_solution(m, q, r);
  EXPECT_EQ(r.pivots, 256);
  Eigen::VectorXd expected = Eigen::VectorXd::Zero(n);
  expected[0] = 1.0;
  EXPECT_LE((r.z - expected).lpNorm<Eigen::Infinity>(), 1e-12);

  LemkeOptions limited;
  limited.max_pivots = 10;
  EXPECT_EQ(solve_lemke(m, q, limited).status, LcpStatus::kNoConvergence);
}

TEST(Lemke, RejectsInvalidOptionsAndSizesWithAMessage) {
  Eigen::MatrixXd m = Eigen::MatrixXd::Identity(2, 2);
  const Eigen::VectorXd q = Eigen::Vector2d(-1, -1);
  LemkeOptions bad;
  bad.zero_tol = -1;
  EXPECT_EQ(bad.validate(), "zero_tol = -1: must be finite and >= 0 (0 = derived)");
  EXPECT_EQ(LemkeOptions{}.validate(), "");
  const LcpResult rejected = solve_lemke(m, q, bad);
  EXPECT_EQ(rejected.status, LcpStatus::kInvalidInput);
  EXPECT_EQ(rejected.message,
            "invalid options: zero_tol = -1: must be finite and >= 0 (0 = derived)");
  EXPECT_EQ(rejected.pivots, 0);
  LemkeOptions bad_pivots;
  bad_pivots.max_pivots = -3;
  EXPECT_EQ(bad_pivots.validate(), "max_pivots = -3: must be >= 0 (0 = automatic)");
  LemkeOptions bad_accept;
  bad_accept.accept_residual = std::numeric_limits<double>::infinity();
  EXPECT_EQ(bad_accept.validate(), "accept_residual = inf: must be finite and >= 0 (0 = derived)");
  const LcpResult mismatch = solve_lemke(m, Eigen::Vector3d(-1, -1, -1));
  EXPECT_EQ(mismatch.status, LcpStatus::kInvalidInput);
  EXPECT_EQ(mismatch.message, "invalid sizes: M is 2x2, q has 3 entries");
  m(0, 1) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(solve_lemke(m, q).status, LcpStatus::kNumericalFailure);
}

TEST(Lemke, EmptyProblemSucceeds) {
  const LcpResult r = solve_lemke(Eigen::MatrixXd(0, 0), Eigen::VectorXd(0));
  EXPECT_EQ(r.status, LcpStatus::kSolved);
  EXPECT_EQ(r.z.size(), 0);
}

TEST(Lemke, TightAcceptanceThresholdReportsInaccurate) {
  std::mt19937 gen(5);
  const Eigen::MatrixXd a = random_normal(30, 30, gen);
  const Eigen::MatrixXd m = a * a.transpose() + 1e-6 * Eigen::MatrixXd::Identity(30, 30);
  const Eigen::VectorXd q = random_normal(30, 1, gen);
  LemkeOptions strict;
  strict.accept_residual = 1e-300;
  const LcpResult r = solve_lemke(m, q, strict);
  if (r.residual > 1e-300) {
    EXPECT_EQ(r.status, LcpStatus::kInaccurate);
  }
}

TEST(LcpResidual, NaturalMapResidual) {
  EXPECT_EQ(lcp_residual(Eigen::Vector2d(0, 3), Eigen::Vector2d(2, 0)), 0.0);
  EXPECT_DOUBLE_EQ(lcp_residual(Eigen::Vector2d(1, 0), Eigen::Vector2d(0.5, 0)), 0.5);
  EXPECT_DOUBLE_EQ(lcp_residual(Eigen::Vector2d(-2, 0), Eigen::Vector2d(1, 0)), 2.0);
  EXPECT_DOUBLE_EQ(lcp_residual(Eigen::Vector2d(4, 0), Eigen::Vector2d(-3, 1)), 3.0);
  EXPECT_TRUE(std::isinf(lcp_residual(Eigen::Vector2d(std::numeric_limits<double>::quiet_NaN(), 0),
                                      Eigen::Vector2d(0, 0))));
  EXPECT_EQ(to_string(LcpStatus::kInfeasible), "infeasible");
  EXPECT_EQ(to_string(LcpStatus::kSolved), "solved");
  EXPECT_EQ(to_string(LcpStatus::kInvalidInput), "invalid input");
}

}  // namespace
}  // namespace nsspice::solvers
