// Projected Gauss–Seidel / projected successive over-relaxation (PGS / PSOR) with the
// regularization of RPSOR for zero diagonal entries (AB08 §12.4.6).
//
// Sweep k → k+1, for i = 1..n in order (z_j already updated for j < i):
//   w_i = q_i + Σ_{j<i} M_ij z_j^{k+1} + Σ_{j≥i} M_ij z_j^k
//   z_i^{k+1} = max(0, z_i^k − ω w_i / (M_ii + ρ_i)),        ω ∈ (0, 2)
// ω = 1 is PGS. ρ_i = 0 when M_ii > 0; when M_ii ≤ 0 (PSD with a zero diagonal entry, e.g.
// the diode bridge) ρ_i = regularization (0 = auto: max_j |M_ij|), which is RPSOR: each sweep
// is one Gauss–Seidel sweep for the proximal problem LCP(M + diag(ρ), q − diag(ρ) z^k).
// A zero row i with q_i < 0 makes w_i = q_i < 0 for every z: kInfeasible (a proof).
//
// Guarantees: for symmetric positive semidefinite M with a solvable LCP the iterates converge
// to a solution (Cottle, Pang, Stone 1992 §5.2, Thm 5.2.12 for PSD with M_ii > 0; AB08 §12.4.6
// for RPSOR); for symmetric positive definite M the solution is unique and convergence is
// linear. Outside that class (non-symmetric, indefinite) no convergence is promised; the
// iteration limit then gives kNoConvergence. Convergence is slow once the active set is
// found, so (option `polish`) whenever the active set {j : z_j > w_j} is unchanged between two
// residual checks, the direct solve M_ZZ z_Z = −q_Z on it is tried and kept if its residual
// is smaller: the method then ends on an exact complementary basis.
//
// Derived tolerances: stop when lcp_residual(z, M z + q) ≤ tolerance, default
// 10³ (n+1) ε scale (lcp_support.hpp), which is also the success threshold.
#pragma once

#include <Eigen/Core>
#include <string>

#include "solvers/lcp/lcp.hpp"

namespace nsspice::solvers {

struct PgsOptions {
  double omega = 1.0;          // relaxation ω ∈ (0, 2); 1 = PGS
  int max_iterations = 0;      // sweeps; 0 = automatic: 2000
  int check_every = 4;         // sweeps between residual checks (and polish attempts)
  double regularization = 0;   // ρ for M_ii ≤ 0; 0 = auto (max_j |M_ij|)
  double accept_residual = 0;  // stopping and success threshold; 0 = derived
  bool polish = true;          // direct solve on a stable active set (see the header)

  // Empty when valid, else the field out of range and its allowed range.
  std::string validate() const;
};

// Solves LCP(M, q) by PSOR starting from z = 0. `iterations` counts sweeps.
// Statuses: kSolved; kNoConvergence (iteration limit, or divergence to non-finite values);
// kInfeasible (zero row with q_i < 0); kNumericalFailure for invalid data or options.
LcpResult solve_pgs(const Eigen::MatrixXd& M, const Eigen::VectorXd& q,
                    const PgsOptions& options = {});

}  // namespace nsspice::solvers
