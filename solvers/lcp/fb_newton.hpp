// Semismooth Newton method on the Fischer–Burmeister reformulation of LCP(M, q) with an
// Armijo line search on the merit function (AB08 §12.5.4, (12.198d), (12.201)–(12.203)).
//
//   φ(a, b) = √(a² + b²) − a − b           (φ = 0  ⇔  a ≥ 0, b ≥ 0, ab = 0)
//   Φ_i(z) = φ(z_i, w_i),  w = M z + q,     Ψ(z) = ½ ΦᵀΦ,   ∇Ψ = Hᵀ Φ
//   H = diag(α) + diag(β) M ∈ ∂Φ(z):  α_i = z_i/ρ_i − 1,  β_i = w_i/ρ_i − 1,  ρ_i = ‖(z_i, w_i)‖
//   and, where (z_i, w_i) = (0, 0), α_i = β_i = 1/√2 − 1 (an element of the Clarke Jacobian).
// Iteration (De Luca, Facchinei, Kanzow 1996):
//   d = −H⁻¹ Φ  (Newton); if H is singular or ∇Ψᵀd > −10⁻¹⁰ ‖d‖^2.1, d = −∇Ψ (gradient step);
//   t = max{ 2^−l : Ψ(z + t d) ≤ Ψ(z) + σ t ∇Ψᵀd },  σ = 10⁻⁴;   z ← z + t d.
// If the Newton direction's line search fails, the gradient direction is tried before
// giving up.
//
// Guarantees: Ψ is continuously differentiable; every stationary point of Ψ solves the LCP
// when M is a P₀-matrix (Facchinei, Soares 1997), and the level sets are bounded for a
// P-matrix, so the method converges globally for P-matrices (symmetric or not, including
// positive definite), locally Q-quadratically at a nondegenerate (strongly regular) solution.
// For PSD M with a solvable LCP it usually converges but the Jacobian is singular at
// degenerate solutions (AB08 Remark 12.55), where convergence is slow. An infeasible LCP
// drives Ψ to a positive infimum: reported kNoConvergence (a stationary point, line search
// failure or the iteration limit); no proof of infeasibility.
// Polishing (option `polish`): when the active set {j : z_j > w_j} repeats between two
// iterations, the direct solve M_ZZ z_Z = −q_Z on it is tried and kept if better.
//
// Derived tolerances: stop when lcp_residual(max(0, z), M max(0, z) + q) ≤ 10³ (n+1) ε scale
// (lcp_support.hpp), also the success threshold; stationary when ‖∇Ψ‖∞ ≤ ε ‖H‖∞ ‖Φ‖∞.
#pragma once

#include <Eigen/Core>
#include <string>

#include "solvers/lcp/lcp.hpp"

namespace nsspice::solvers {

struct FbNewtonOptions {
  int max_iterations = 0;      // Newton steps; 0 = automatic: 200
  int max_backtracks = 60;     // halvings of t per line search
  double sigma = 1e-4;         // Armijo constant σ ∈ (0, ½)
  double accept_residual = 0;  // stopping and success threshold; 0 = derived
  bool polish = true;          // direct solve on a repeated active set (see the header)

  // Empty when valid, else the field out of range and its allowed range.
  std::string validate() const;
};

// Solves LCP(M, q) by semismooth Newton from z = 0. `iterations` counts Newton steps,
// `pivots` stays 0. Statuses: kSolved; kNoConvergence (limit, stationary point, line search
// failure); kNumericalFailure for invalid data or options, or non-finite iterates.
LcpResult solve_fb_newton(const Eigen::MatrixXd& M, const Eigen::VectorXd& q,
                          const FbNewtonOptions& options = {});

}  // namespace nsspice::solvers
