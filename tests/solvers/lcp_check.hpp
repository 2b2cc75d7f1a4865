// Checks shared by the LCP solver tests: a solver's answer is a solution of LCP(M, q), judged
// independently of the solver (w recomputed, natural-map residual), and the solver table.
#pragma once

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <string>
#include <vector>

#include "solvers/lcp/policy.hpp"

namespace nsspice::solvers::testing {

// Every method of the suite (kAuto = the policy).
inline const std::vector<LcpSolverKind>& all_solver_kinds() {
  static const std::vector<LcpSolverKind> kinds = {
      LcpSolverKind::kLemke, LcpSolverKind::kMurty,  LcpSolverKind::kEnumeration,
      LcpSolverKind::kPgs,   LcpSolverKind::kNewton, LcpSolverKind::kAuto};
  return kinds;
}

inline LcpResult solve_with(LcpSolverKind kind, const Eigen::MatrixXd& M,
                            const Eigen::VectorXd& q) {
  if (kind == LcpSolverKind::kAuto) return solve_lcp(M, q);
  return run_lcp_solver(kind, M, q, LcpPolicy{});
}

// scale = max(1, ‖q‖∞, ‖M‖∞ ‖z‖∞) (the tests' acceptance: residual ≤ 1e-9 scale).
inline double test_scale(const Eigen::MatrixXd& m, const Eigen::VectorXd& q,
                         const Eigen::VectorXd& z) {
  const double m_inf = m.size() ? m.cwiseAbs().rowwise().sum().maxCoeff() : 0.0;
  const double z_inf = z.size() ? z.lpNorm<Eigen::Infinity>() : 0.0;
  const double q_inf = q.size() ? q.lpNorm<Eigen::Infinity>() : 0.0;
  return std::max({1.0, q_inf, m_inf * z_inf});
}

// A kSolved answer that really solves LCP(M, q).
inline ::testing::AssertionResult is_solution(const Eigen::MatrixXd& m, const Eigen::VectorXd& q,
                                              const LcpResult& r) {
  if (r.status != LcpStatus::kSolved) {
    return ::testing::AssertionFailure()
           << "status " << to_string(r.status) << " (" << r.message << ")";
  }
  if (r.z.size() != q.size() || r.w.size() != q.size()) {
    return ::testing::AssertionFailure() << "wrong sizes";
  }
  const double scale = test_scale(m, q, r.z);
  const Eigen::VectorXd w = m * r.z + q;
  const double w_err = (w - r.w).lpNorm<Eigen::Infinity>();
  const double res = lcp_residual(r.z, w);
  if (w_err > 1e-12 * scale || res > 1e-9 * scale || r.residual != lcp_residual(r.z, r.w)) {
    return ::testing::AssertionFailure()
           << "w error " << w_err << ", residual " << res << " (scale " << scale << ")";
  }
  return ::testing::AssertionSuccess();
}

// z agrees with a known unique solution.
inline ::testing::AssertionResult agrees(const Eigen::VectorXd& z, const Eigen::VectorXd& z_star,
                                         double rel = 1e-8) {
  const double err = (z - z_star).lpNorm<Eigen::Infinity>();
  if (z.size() == z_star.size() && err <= rel * std::max(1.0, z_star.lpNorm<Eigen::Infinity>())) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "|z - z*| = " << err;
}

}  // namespace nsspice::solvers::testing
