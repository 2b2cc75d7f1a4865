// Random LCPs with fixed seeds: P-matrices (unique solution: all methods agree with the
// built-in one), PSD, degenerate (ties), infeasible (detected, bounded time), sizes 1–500.
#include <gtest/gtest.h>

#include <string>

#include "lcp_check.hpp"
#include "lcp_problems.hpp"

namespace nsspice::solvers {
namespace {

using testing::LcpProblem;

const std::vector<int> kSizes = {1, 2, 3, 5, 8, 13, 21, 50, 100, 200, 500};
constexpr int kEnumerationMax = 10;

// Runs `kind` and checks it found the unique solution z_star.
void expect_unique(LcpSolverKind kind, const LcpProblem& p) {
  SCOPED_TRACE(p.name + " n=" + std::to_string(p.q.size()) + " " + std::string(to_string(kind)));
  const LcpResult r = testing::solve_with(kind, p.M, p.q);
  EXPECT_TRUE(testing::is_solution(p.M, p.q, r));
  EXPECT_TRUE(testing::agrees(r.z, p.z_star));
}

TEST(LcpRandom, SymmetricPositiveDefiniteAllMethodsAgree) {
  for (const int n : kSizes) {
    const LcpProblem p = testing::random_pd(n, 100 + n, false);
    for (const LcpSolverKind kind : testing::all_solver_kinds()) {
      if (kind == LcpSolverKind::kEnumeration && n > kEnumerationMax) continue;
      expect_unique(kind, p);
    }
  }
}

TEST(LcpRandom, NonsymmetricPositiveDefiniteAllPivotingAndNewtonAgree) {
  for (const int n : kSizes) {
    const LcpProblem p = testing::random_pd(n, 200 + n, true);
    for (const LcpSolverKind kind : testing::all_solver_kinds()) {
      if (kind == LcpSolverKind::kPgs) continue;  // no guarantee for non-symmetric M
      if (kind == LcpSolverKind::kEnumeration && n > kEnumerationMax) continue;
      expect_unique(kind, p);
    }
  }
}

// Triangular P-matrices are neither symmetric nor PD; their inverses grow like 3^n, so the
// sizes stay small enough for every pivot to keep full relative accuracy.
TEST(LcpRandom, TriangularPMatricesAllMethodsAgree) {
  for (const int n : {1, 2, 3, 5, 8, 10, 12}) {
    for (std::uint32_t seed = 0; seed < 5; ++seed) {
      const LcpProblem p = testing::random_triangular_p(n, 300 + 17 * seed + n);
      for (const LcpSolverKind kind : testing::all_solver_kinds()) {
        if (kind == LcpSolverKind::kPgs) continue;
        expect_unique(kind, p);
      }
    }
  }
}

TEST(LcpRandom, PositiveSemidefiniteSolvable) {
  for (const int n : {1, 2, 4, 8, 16, 50, 100, 200}) {
    const LcpProblem p = testing::random_psd(n, 400 + n);
    SCOPED_TRACE("n=" + std::to_string(n));
    // Lemke (copositive-plus) and the policy are guaranteed here. PGS converges on symmetric
    // PSD M only in the limit (linearly, with a rate that degrades as M nears singularity):
    // from n = 100 on its default sweep budget is not enough, and it must say so.
    EXPECT_TRUE(testing::is_solution(p.M, p.q, solve_lemke(p.M, p.q)));
    const LcpResult pgs = solve_pgs(p.M, p.q);
    if (n < 100 || pgs.status == LcpStatus::kSolved) {
      EXPECT_TRUE(testing::is_solution(p.M, p.q, pgs));
    } else {
      EXPECT_EQ(pgs.status, LcpStatus::kNoConvergence);
    }
    EXPECT_TRUE(testing::is_solution(p.M, p.q, solve_lcp(p.M, p.q)));
    if (n <= kEnumerationMax) {
      EXPECT_TRUE(testing::is_solution(p.M, p.q, solve_enumeration(p.M, p.q)));
    }
    // Murty and Newton have no guarantee on singular PSD M; whatever they return is verified.
    for (const LcpResult& r : {solve_murty(p.M, p.q), solve_fb_newton(p.M, p.q)}) {
      if (r.status == LcpStatus::kSolved) {
        EXPECT_TRUE(testing::is_solution(p.M, p.q, r));
      }
    }
  }
}

TEST(LcpRandom, DegenerateTiesAllMethodsAgree) {
  for (const int n : {2, 3, 4, 6, 9, 10, 30, 60}) {
    for (std::uint32_t seed = 0; seed < 4; ++seed) {
      const LcpProblem p = testing::random_degenerate(n, 500 + 31 * seed + n);
      for (const LcpSolverKind kind : testing::all_solver_kinds()) {
        if (kind == LcpSolverKind::kEnumeration && n > kEnumerationMax) continue;
        expect_unique(kind, p);
      }
    }
  }
}

// n ≥ 2: for n = 1 the construction leaves M = O(ε²) instead of 0, whose LCP is solvable
// with z = O(1/ε²) (the exact n = 1 case is the stored AB08 circuit (c) problem).
TEST(LcpRandom, InfeasibleDetectedWithoutLooping) {
  for (const int n : {2, 3, 5, 8, 20, 60}) {
    const LcpProblem p = testing::random_infeasible(n, 600 + n);
    SCOPED_TRACE("n=" + std::to_string(n));
    // Termination is what is tested (every method has an iteration bound); timing belongs in
    // benchmarks, not in tests.
    EXPECT_EQ(solve_lemke(p.M, p.q).status, LcpStatus::kInfeasible);
    const PolicyResult policy = solve_lcp(p.M, p.q);
    EXPECT_EQ(policy.status, LcpStatus::kInfeasible);
    EXPECT_EQ(policy.attempts.size(), 1u) << "Lemke's ray on a PSD M is a proof: no fallback";
    if (n <= kEnumerationMax) {
      EXPECT_EQ(solve_enumeration(p.M, p.q).status, LcpStatus::kInfeasible);
    }
    for (const LcpResult& r :
         {solve_murty(p.M, p.q), solve_pgs(p.M, p.q), solve_fb_newton(p.M, p.q)}) {
      EXPECT_NE(r.status, LcpStatus::kSolved) << r.message;
      EXPECT_NE(r.status, LcpStatus::kInaccurate);
      EXPECT_FALSE(r.message.empty());
    }
  }
}

TEST(LcpRandom, NonCopositiveInfeasibleIsReportedNotSolved) {
  // LCP(−I, −e): w = −z − e < 0 for every z ≥ 0.
  for (const int n : {1, 4, 9}) {
    const Eigen::MatrixXd m = -Eigen::MatrixXd::Identity(n, n);
    const Eigen::VectorXd q = -Eigen::VectorXd::Ones(n);
    for (const LcpSolverKind kind : testing::all_solver_kinds()) {
      const LcpResult r = testing::solve_with(kind, m, q);
      EXPECT_NE(r.status, LcpStatus::kSolved) << to_string(kind);
      EXPECT_NE(r.status, LcpStatus::kInaccurate) << to_string(kind);
    }
    EXPECT_EQ(solve_enumeration(m, q).status, LcpStatus::kInfeasible);
  }
}

}  // namespace
}  // namespace nsspice::solvers
