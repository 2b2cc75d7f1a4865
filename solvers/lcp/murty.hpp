// Murty's least-index principal pivoting method (AB08 §12.4.7, Algorithm 13).
//
// Tableau of the current principal pivot transform:  y = T x + p,  where x are the nonbasic
// and y the basic variables (initially y = w, x = z, T = M, p = q). While p ≱ 0:
//   r = min { i : p_i < −tol }                                   (least index, (12.138))
//   exchange y_r and x_r by the principal pivot on t = T_rr:
//     T_rr ← 1/t,  T_ir ← T_ir/t,  T_rj ← −T_rj/t,  T_ij ← T_ij − T_ir T_rj / t,
//     p_r ← −p_r/t,  p_i ← p_i − T_ir p_r / t                           (i, j ≠ r)
// At p ≥ 0, x = 0 and y = p solve the transformed problem, which names the complementary
// basis Z = {j : z_j basic}; z is recomputed by the direct solve M_ZZ z_Z = −q_Z.
//
// Guarantees: for a P-matrix M (all principal minors > 0; e.g. any positive definite M,
// symmetric or not) every principal pivot transform is again a P-matrix (so t > 0), the
// method never repeats a basis and terminates in at most 2^n pivots on the unique solution
// (Murty 1974; Murty 1988 §4.2; Cottle, Pang, Stone 1992 §4.2). The bound is attained:
// Murty's upper-triangular example (tests) needs 2^n − 1 pivots.
// For other matrices it may meet t ≤ 0 (reported kNumericalFailure, "not a P-matrix"),
// or cycle (a repeated basis is detected with a 64-bit Zobrist hash of the basic set and
// reported kNoConvergence, "cycling"); neither proves anything about solvability.
//
// Derived tolerances (n = size, ε = machine epsilon):
//   tol   = zero_tol · max(‖q‖∞, ‖p‖∞),  zero_tol = 16 (n+1) ε   (p_i ≥ −tol counts as ≥ 0)
//   pivot t ≤ zero_tol · max_j |T_rj| is treated as nonpositive (not a P-matrix).
//   Acceptance: lcp_residual ≤ 10³ (n+1) ε scale (lcp_support.hpp), else kInaccurate.
#pragma once

#include <Eigen/Core>
#include <string>

#include "solvers/lcp/lcp.hpp"

namespace nsspice::solvers {

struct MurtyOptions {
  // Pivot limit. 0 = automatic: min(2^n, 50 (n+1)^2, 10^6) (2^n bounds P-matrices).
  int max_pivots = 0;
  // Relative zero tolerance (see the header). 0 = derived: 16 (n+1) ε.
  double zero_tol = 0;
  // Residual above which a terminated solve is kInaccurate. 0 = derived (lcp_support.hpp).
  double accept_residual = 0;

  // Empty when valid, else the field out of range and its allowed range.
  std::string validate() const;
};

// Solves LCP(M, q) by Murty's least-index method. q ≥ 0 returns z = 0 with 0 pivots.
// Statuses: kSolved / kInaccurate on termination; kNoConvergence on the pivot limit or a
// repeated basis; kNumericalFailure for invalid data or options, or a nonpositive pivot.
LcpResult solve_murty(const Eigen::MatrixXd& M, const Eigen::VectorXd& q,
                      const MurtyOptions& options = {});

}  // namespace nsspice::solvers
