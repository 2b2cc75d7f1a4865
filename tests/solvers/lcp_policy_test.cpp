// The LCP selection policy: names, structure detection, the auto order, forced methods,
// fallbacks and the record of attempts.
#include <gtest/gtest.h>

#include "lcp_check.hpp"
#include "lcp_problems.hpp"
#include "solvers/lcp/policy.hpp"

namespace nsspice::solvers {
namespace {

TEST(LcpPolicy, ParsesSolverNames) {
  EXPECT_EQ(parse_lcp_solver("lemke"), LcpSolverKind::kLemke);
  EXPECT_EQ(parse_lcp_solver("Murty"), LcpSolverKind::kMurty);
  EXPECT_EQ(parse_lcp_solver("ENUM"), LcpSolverKind::kEnumeration);
  EXPECT_EQ(parse_lcp_solver("pgs"), LcpSolverKind::kPgs);
  EXPECT_EQ(parse_lcp_solver("newton"), LcpSolverKind::kNewton);
  EXPECT_EQ(parse_lcp_solver("auto"), LcpSolverKind::kAuto);
  EXPECT_FALSE(parse_lcp_solver("psor"));
  EXPECT_FALSE(parse_lcp_solver(""));
  EXPECT_FALSE(parse_lcp_solver("lemke "));
  for (const LcpSolverKind k : testing::all_solver_kinds()) {
    EXPECT_EQ(parse_lcp_solver(to_string(k)), k);
  }
}

TEST(LcpPolicy, DetectsStructure) {
  const auto sym = analyze_structure(testing::random_pd(10, 1, false).M);
  EXPECT_TRUE(sym.symmetric && sym.pd && sym.psd && sym.positive_diagonal);
  const auto skew = analyze_structure(testing::random_pd(10, 1, true).M);
  EXPECT_TRUE(!skew.symmetric && skew.pd && skew.psd);
  const auto psd = analyze_structure(testing::random_psd(10, 1).M);
  EXPECT_TRUE(psd.symmetric && psd.psd && !psd.pd);
  const auto indefinite = analyze_structure(Eigen::Matrix2d(Eigen::Vector2d(1, -1).asDiagonal()));
  EXPECT_TRUE(indefinite.symmetric && !indefinite.psd && !indefinite.positive_diagonal);
}

TEST(LcpPolicy, AutoPicksByStructureAndSize) {
  const auto small = testing::random_pd(10, 2, false);
  const PolicyResult r_small = solve_lcp(small.M, small.q);
  EXPECT_EQ(r_small.method, LcpSolverKind::kLemke);
  ASSERT_EQ(r_small.attempts.size(), 1u);
  EXPECT_TRUE(testing::is_solution(small.M, small.q, r_small));

  const auto big_sym = testing::random_pd(100, 3, false);
  const PolicyResult r_sym = solve_lcp(big_sym.M, big_sym.q);
  EXPECT_EQ(r_sym.method, LcpSolverKind::kPgs);
  EXPECT_TRUE(testing::agrees(r_sym.z, big_sym.z_star));

  const auto big_skew = testing::random_pd(100, 4, true);
  const PolicyResult r_skew = solve_lcp(big_skew.M, big_skew.q);
  EXPECT_EQ(r_skew.method, LcpSolverKind::kMurty);
  EXPECT_TRUE(testing::agrees(r_skew.z, big_skew.z_star));
}

TEST(LcpPolicy, ForcedMethodRunsAlone) {
  const auto p = testing::random_pd(8, 5, false);
  for (const LcpSolverKind k : testing::all_solver_kinds()) {
    if (k == LcpSolverKind::kAuto) continue;
    LcpPolicy policy;
    policy.force = k;
    const PolicyResult r = solve_lcp(p.M, p.q, policy);
    EXPECT_EQ(r.method, k);
    ASSERT_EQ(r.attempts.size(), 1u);
    EXPECT_EQ(r.attempts[0].kind, k);
    EXPECT_TRUE(testing::agrees(r.z, p.z_star)) << to_string(k);
  }
  // A forced failure stays a failure.
  LcpPolicy pgs;
  pgs.force = LcpSolverKind::kPgs;
  pgs.pgs.max_iterations = 10;
  const auto bridge = testing::diode_bridge_dump(10.0, 0.0, "policy test");
  EXPECT_EQ(solve_lcp(bridge.M, bridge.q, pgs).status, LcpStatus::kNoConvergence);
}

TEST(LcpPolicy, FallsBackInTheDocumentedOrder) {
  const auto p = testing::random_pd(12, 6, true);  // non-symmetric PD
  LcpPolicy policy;
  policy.lemke.max_pivots = 1;  // make the primary fail
  policy.murty.max_pivots = 1;  // and the first fallback
  const PolicyResult r = solve_lcp(p.M, p.q, policy);
  ASSERT_GE(r.attempts.size(), 3u);
  EXPECT_EQ(r.attempts[0].kind, LcpSolverKind::kLemke);
  EXPECT_EQ(r.attempts[0].status, LcpStatus::kNoConvergence);
  EXPECT_EQ(r.attempts[1].kind, LcpSolverKind::kMurty);
  EXPECT_EQ(r.attempts[2].kind, LcpSolverKind::kNewton);
  EXPECT_EQ(r.method, LcpSolverKind::kNewton);
  EXPECT_TRUE(testing::agrees(r.z, p.z_star));
  // Forced with fallback: the forced method first, then the auto order without it.
  policy.force = LcpSolverKind::kMurty;
  policy.fallback_when_forced = true;
  const PolicyResult f = solve_lcp(p.M, p.q, policy);
  ASSERT_GE(f.attempts.size(), 3u);
  EXPECT_EQ(f.attempts[0].kind, LcpSolverKind::kMurty);
  EXPECT_EQ(f.attempts[1].kind, LcpSolverKind::kLemke);
  EXPECT_EQ(f.method, LcpSolverKind::kNewton);
}

TEST(LcpPolicy, ReturnsTheBestFailureWhenNothingSucceeds) {
  // LCP(−I, −e) is infeasible and −I is not copositive: every method runs, none succeeds,
  // enumeration proves infeasibility (all principal submatrices nonsingular) and stops.
  const PolicyResult r = solve_lcp(-Eigen::MatrixXd::Identity(3, 3), -Eigen::VectorXd::Ones(3));
  EXPECT_EQ(r.status, LcpStatus::kInfeasible);
  EXPECT_EQ(r.attempts.back().kind, LcpSolverKind::kEnumeration);
  EXPECT_FALSE(r.message.empty());
  for (const auto& a : r.attempts) EXPECT_NE(a.status, LcpStatus::kSolved);
}

}  // namespace
}  // namespace nsspice::solvers
