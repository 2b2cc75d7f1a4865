// Lemke's complementary pivoting method with lexicographic degeneracy resolution.
//
// Augmented system (covering vector e = (1, ..., 1), artificial variable z0 >= 0):
//   w - M z - e z0 = q,   w, z, z0 >= 0,   w_j z_j = 0  for all j.
// Tableau form  T = B^-1 [ I  -M  -e | q ]  for the current basis B (B = I initially).
// Start: z0 enters, w_r leaves with r = lexmin_i (q_i, e_i^T) (most negative q_i, ties
// -> largest index), which makes every row of [B^-1 q | B^-1] lexicographically positive.
// Then repeatedly the complement of the variable that just left enters, and the leaving
// row is chosen by the lexicographic minimum ratio test
//   r = lexmin { (B^-1 q)_i, (B^-1)_i. } / a_i  over a_i > 0,  a = B^-1 A_entering,
// preferring z0 when it ties at the first level (then the method stops on a solution).
// Lexicographic positivity is preserved, so no basis repeats and the method is finite.
// Termination: z0 leaves -> complementary basis, solution; no a_i > 0 -> secondary ray.
//
// References: V. Acary, B. Brogliato, "Numerical Methods for Nonsmooth Dynamical
// Systems" (AB08), Springer 2008, ch. 12 (Lemke's method); R. W. Cottle, J.-S. Pang,
// R. E. Stone, "The Linear Complementarity Problem" (1992), sec. 4.4 (Lemke) and
// sec. 4.9 (lexicographic degeneracy resolution).
#pragma once

#include <Eigen/Core>
#include <string>

#include "solvers/lcp/lcp.hpp"

namespace nsspice::solvers {

struct LemkeOptions {
  // Pivot limit. 0 = automatic: min(50 (n+1)^2, 1'000'000).
  int max_pivots = 0;
  // Relative zero tolerance. An entry a_i of the entering column counts as positive
  // (blocking) only if a_i > zero_tol * ||a||_inf; ratios within zero_tol * (largest
  // ratio magnitude at that lexicographic level) are ties. Relative to the column so that
  // it is invariant to the scaling of M and q. 0 = derived: 16 (n+1) eps.
  double zero_tol = 0;
  // Residual (lcp_residual) above which a terminated solve is reported kInaccurate.
  // 0 = derived: 1e3 (n+1) eps * max(||q||_inf, ||M||_inf ||z||_inf, ||z||_inf).
  double accept_residual = 0;

  // Empty when valid, else the field out of range and its allowed range.
  std::string validate() const;
};

// Solves LCP(M, q) by Lemke's method (see the header comment).
//  - q >= 0: returns z = 0 (all w basic) immediately, pivots = 0.
//  - kInfeasible on ray termination. For copositive-plus M (e.g. positive semidefinite,
//    or P-matrices, for which a ray cannot occur) this proves that LCP(M, q) has no
//    feasible point; for other M the method may fail to find an existing solution.
//  - kNoConvergence when the pivot limit is reached (cannot happen in exact arithmetic).
//  - kInvalidInput for non-square M / size mismatch or invalid options (the message names the
//    field and its range); kNumericalFailure for NaN/Inf in the data or in the tableau.
//  - kInaccurate if the final complementary basis gives lcp_residual > accept_residual.
// On termination z is taken from the better (smaller residual) of the tableau values and
// a direct re-solve M_ZZ z_Z = -q_Z on the final basis Z, projected onto z >= 0; w is then
// recomputed as M z + q.
LcpResult solve_lemke(const Eigen::MatrixXd& M, const Eigen::VectorXd& q,
                      const LemkeOptions& options = {});

}  // namespace nsspice::solvers
