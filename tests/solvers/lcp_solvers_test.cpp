// Unit tests of the individual LCP solvers (murty, enumeration, pgs, fb_newton): hand-solved
// cases, option validation, documented failure modes, and the known hard cases.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "lcp_check.hpp"
#include "lcp_problems.hpp"

namespace nsspice::solvers {
namespace {

Eigen::MatrixXd mat(std::initializer_list<std::initializer_list<double>> rows) {
  Eigen::MatrixXd m(static_cast<Eigen::Index>(rows.size()),
                    static_cast<Eigen::Index>(rows.begin()->size()));
  Eigen::Index i = 0;
  for (const auto& r : rows) {
    Eigen::Index j = 0;
    for (const double v : r) m(i, j++) = v;
    ++i;
  }
  return m;
}

TEST(LcpSolvers, HandSolvedTwoByTwo) {
  // M = [2 1; 1 2], q = (−5, −6): both conduct, z = (4/3, 7/3), w = 0.
  const Eigen::MatrixXd m = mat({{2, 1}, {1, 2}});
  const Eigen::Vector2d q(-5, -6);
  for (const LcpSolverKind kind : testing::all_solver_kinds()) {
    const LcpResult r = testing::solve_with(kind, m, q);
    EXPECT_TRUE(testing::is_solution(m, q, r)) << to_string(kind);
    EXPECT_TRUE(testing::agrees(r.z, Eigen::Vector2d(4.0 / 3.0, 7.0 / 3.0), 1e-12));
    EXPECT_EQ(r.z_basic, (std::vector<char>{1, 1})) << to_string(kind);
  }
}

TEST(LcpSolvers, TrivialAndEmptyProblems) {
  for (const LcpSolverKind kind : testing::all_solver_kinds()) {
    const LcpResult empty = testing::solve_with(kind, Eigen::MatrixXd(0, 0), Eigen::VectorXd(0));
    EXPECT_EQ(empty.status, LcpStatus::kSolved) << to_string(kind);
    const Eigen::Vector2d q(1, 0);
    const LcpResult r = testing::solve_with(kind, -Eigen::Matrix2d::Identity(), q);
    EXPECT_EQ(r.status, LcpStatus::kSolved) << to_string(kind);
    EXPECT_EQ(r.z, Eigen::Vector2d::Zero());
  }
}

TEST(LcpSolvers, InvalidOptionsAndSizesAreInvalidInputNaNIsNumericalFailure) {
  const Eigen::MatrixXd m = Eigen::MatrixXd::Identity(2, 2);
  const Eigen::Vector2d q(-1, -1);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const LcpSolverKind kind : testing::all_solver_kinds()) {
    EXPECT_EQ(testing::solve_with(kind, Eigen::MatrixXd::Identity(3, 3), q).status,
              LcpStatus::kInvalidInput);
    EXPECT_EQ(testing::solve_with(kind, m, Eigen::Vector2d(nan, -1)).status,
              LcpStatus::kNumericalFailure);
  }
  EXPECT_EQ((MurtyOptions{-1, 0, 0}).validate(), "max_pivots = -1: must be >= 0 (0 = automatic)");
  EXPECT_EQ(MurtyOptions{}.validate(), "");
  const LcpResult murty = solve_murty(m, q, {0, -1.0, 0});
  EXPECT_EQ(murty.status, LcpStatus::kInvalidInput);
  EXPECT_EQ(murty.message, "invalid options: zero_tol = -1: must be finite and >= 0 (0 = derived)");
  EXPECT_EQ((EnumerationOptions{21, 0}).validate(), "max_size = 21: must be in [0, 20]");
  EXPECT_EQ((EnumerationOptions{3, -1}).validate(),
            "accept_residual = -1: must be finite and >= 0 (0 = derived)");
  EXPECT_EQ(EnumerationOptions{}.validate(), "");
  PgsOptions pgs;
  pgs.omega = 2.0;
  EXPECT_EQ(pgs.validate(), "omega = 2: must be in (0, 2)");
  EXPECT_EQ(solve_pgs(m, q, pgs).status, LcpStatus::kInvalidInput);
  pgs = {};
  pgs.check_every = 0;
  EXPECT_EQ(pgs.validate(), "check_every = 0: must be >= 1");
  EXPECT_EQ(PgsOptions{}.validate(), "");
  FbNewtonOptions newton;
  newton.sigma = 0.7;
  EXPECT_EQ(newton.validate(), "sigma = 0.7: must be in (0, 0.5)");
  EXPECT_EQ(solve_fb_newton(m, q, newton).status, LcpStatus::kInvalidInput);
  newton = {};
  newton.max_backtracks = -1;
  EXPECT_EQ(newton.validate(), "max_backtracks = -1: must be >= 0");
  EXPECT_EQ(FbNewtonOptions{}.validate(), "");
  LcpPolicy policy;
  EXPECT_EQ(policy.validate(), "");
  policy.pgs_first_sweeps = 0;
  EXPECT_EQ(policy.validate(), "pgs_first_sweeps = 0: must be > 0");
  const PolicyResult rejected = solve_lcp(m, q, policy);
  EXPECT_EQ(rejected.status, LcpStatus::kInvalidInput);
  EXPECT_EQ(rejected.message, "invalid options: pgs_first_sweeps = 0: must be > 0");
  policy = {};
  policy.pgs.omega = -1;
  EXPECT_EQ(policy.validate(), "pgs.omega = -1: must be in (0, 2)");
}

TEST(LcpSolvers, MurtyExponentialFamilyNeedsTwoToTheNMinusOnePivots) {
  for (int n = 1; n <= 12; ++n) {
    const LcpDump d = testing::murty_example_dump(n);
    const LcpResult r = solve_murty(d.M, d.q);
    ASSERT_TRUE(testing::is_solution(d.M, d.q, r)) << n;
    EXPECT_EQ(r.pivots, (1 << n) - 1) << n;
  }
  // A pivot limit below 2^n − 1 stops it, reported as such.
  const LcpDump d = testing::murty_example_dump(8);
  const LcpResult limited = solve_murty(d.M, d.q, {100, 0, 0});
  EXPECT_EQ(limited.status, LcpStatus::kNoConvergence);
  EXPECT_EQ(limited.pivots, 100);
}

TEST(LcpSolvers, MurtyDetectsNonPMatrices) {
  // Zero pivot (M = 0).
  const LcpResult zero = solve_murty(Eigen::MatrixXd::Zero(2, 2), Eigen::Vector2d(-1, 1));
  EXPECT_EQ(zero.status, LcpStatus::kNumericalFailure);
  EXPECT_NE(zero.message.find("not a P-matrix"), std::string::npos);
  // Negative pivot after one exchange: M = [1 2; 2 1] (det < 0), q = (−1, −3): p = (1, −1),
  // then T_22 = 1 − 4 = −3. A solution exists (z = (0, 3)); Murty cannot reach it, others do.
  const Eigen::MatrixXd m = mat({{1, 2}, {2, 1}});
  const Eigen::Vector2d q(-1, -3);
  const LcpResult neg = solve_murty(m, q);
  EXPECT_EQ(neg.status, LcpStatus::kNumericalFailure);
  EXPECT_EQ(neg.pivots, 1);
  EXPECT_NE(neg.message.find("not a P-matrix"), std::string::npos);
  EXPECT_TRUE(testing::is_solution(m, q, solve_lemke(m, q)));
  EXPECT_TRUE(testing::is_solution(m, q, solve_lcp(m, q)));
  // The repeated-basis (cycling) safeguard is not reachable on these families: least-index
  // pivoting met a nonpositive pivot first on every random non-P matrix tried (n ≤ 6).
}

TEST(LcpSolvers, EnumerationRejectsLargeProblemsWithoutWork) {
  const Eigen::MatrixXd m = Eigen::MatrixXd::Identity(21, 21);
  const LcpResult r = solve_enumeration(m, -Eigen::VectorXd::Ones(21));
  EXPECT_EQ(r.status, LcpStatus::kNumericalFailure);
  EXPECT_EQ(r.iterations, 0);
  EXPECT_NE(r.message.find("n <= 20 (n = 21)"), std::string::npos);
  const LcpResult small =
      solve_enumeration(Eigen::MatrixXd::Identity(6, 6), -Eigen::VectorXd::Ones(6), {5, 0});
  EXPECT_EQ(small.status, LcpStatus::kNumericalFailure);
}

TEST(LcpSolvers, EnumerationFindsASmallestSupportSolutionOfASingularProblem) {
  // M = [1 1; 1 1], q = (−1, −1): the solutions are z = (t, 1 − t), t ∈ [0, 1].
  const Eigen::MatrixXd m = mat({{1, 1}, {1, 1}});
  const Eigen::Vector2d q(-1, -1);
  const LcpResult r = solve_enumeration(m, q);
  ASSERT_TRUE(testing::is_solution(m, q, r));
  EXPECT_EQ(r.z.cwiseAbs().sum(), 1.0);
  EXPECT_EQ((r.z.array() > 0).count(), 1);
  for (const LcpSolverKind kind : testing::all_solver_kinds()) {
    EXPECT_TRUE(testing::is_solution(m, q, testing::solve_with(kind, m, q))) << to_string(kind);
  }
}

TEST(LcpSolvers, EnumerationInfeasibilityProofNeedsNonsingularSubmatrices) {
  const LcpResult proof =
      solve_enumeration(-Eigen::MatrixXd::Identity(3, 3), -Eigen::VectorXd::Ones(3));
  EXPECT_EQ(proof.status, LcpStatus::kInfeasible);
  EXPECT_NE(proof.message.find("(proof"), std::string::npos);
  EXPECT_EQ(proof.iterations, 8);
  const LcpResult no_proof =
      solve_enumeration(Eigen::MatrixXd::Zero(1, 1), -Eigen::VectorXd::Ones(1));
  EXPECT_EQ(no_proof.status, LcpStatus::kInfeasible);
  EXPECT_NE(no_proof.message.find("not a proof"), std::string::npos);
}

TEST(LcpSolvers, PsorRelaxationConvergesOnSymmetricPd) {
  const auto p = testing::random_pd(40, 7, false);
  int previous = 0;
  for (const double omega : {0.5, 1.0, 1.3, 1.8}) {
    PgsOptions o;
    o.omega = omega;
    o.polish = false;
    const LcpResult r = solve_pgs(p.M, p.q, o);
    EXPECT_TRUE(testing::is_solution(p.M, p.q, r)) << omega;
    EXPECT_TRUE(testing::agrees(r.z, p.z_star)) << omega;
    if (omega == 1.0) previous = r.iterations;
  }
  PgsOptions polished;
  EXPECT_LT(solve_pgs(p.M, p.q, polished).iterations, previous);  // polishing ends earlier
}

TEST(LcpSolvers, PgsReportsNoConvergenceOnNonSymmetricProblem) {
  const auto dump = testing::diode_bridge_dump(10.0, 0.0, "unit test");
  PgsOptions o;
  o.max_iterations = 300;
  const LcpResult r = solve_pgs(dump.M, dump.q, o);
  EXPECT_EQ(r.status, LcpStatus::kNoConvergence);
  EXPECT_EQ(r.iterations, 300);
  EXPECT_NE(r.message.find("300 sweeps"), std::string::npos);
}

TEST(LcpSolvers, NewtonConvergesQuicklyOnPMatrices) {
  for (const int n : {5, 50, 200}) {
    const auto p = testing::random_pd(n, 900 + n, true);
    const LcpResult r = solve_fb_newton(p.M, p.q);
    ASSERT_TRUE(testing::is_solution(p.M, p.q, r)) << n;
    EXPECT_LE(r.iterations, 30) << n;
    EXPECT_EQ(r.pivots, 0);
  }
}

TEST(LcpSolvers, NewtonFallsBackToGradientAndStopsOnInfeasible) {
  // LCP(0, −1): Φ(z) = √(z² + 1) − z + 1 > 1 for every z, Ψ has no zero: bounded failure.
  FbNewtonOptions o;
  o.max_iterations = 50;
  const LcpResult r = solve_fb_newton(Eigen::MatrixXd::Zero(1, 1), -Eigen::VectorXd::Ones(1), o);
  EXPECT_EQ(r.status, LcpStatus::kNoConvergence);
  EXPECT_FALSE(r.message.empty());
  EXPECT_LE(r.iterations, 50);
  // Singular Jacobian at the start (M = [0 1; 0 0], q = (−1, 0): H rows hit a zero): still ends.
  const Eigen::MatrixXd m = mat({{0, 1}, {-1, 0}});
  const Eigen::Vector2d q(-1, 1);
  const LcpResult s = solve_fb_newton(m, q);
  if (s.status == LcpStatus::kSolved) {
    EXPECT_TRUE(testing::is_solution(m, q, s));
  } else {
    EXPECT_FALSE(s.message.empty());
  }
}

}  // namespace
}  // namespace nsspice::solvers
