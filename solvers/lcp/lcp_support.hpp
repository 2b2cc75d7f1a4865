// Shared pieces of the dense LCP solvers (murty, enumeration, pgs, fb_newton): input checks,
// scales and derived tolerances, the direct solve on a complementary basis, result assembly.
//
//   LCP(M, q):  z ≥ 0,  w = M z + q ≥ 0,  zᵀw = 0                               (lcp.hpp)
//   scale(z)  = max(‖q‖∞, ‖M‖∞ ‖z‖∞, ‖z‖∞, DBL_MIN)
//   accept(z) = κ (n+1) ε scale(z),  κ = 10³                 (same as Lemke's default)
//   basis solve on Z = {j : z_j basic}:  M_ZZ z_Z = −q_Z,  z_Z̄ = 0,  w = M z + q
//   (as a correction of a current iterate z0: M_ZZ δ = −q_Z − M_ZZ z0_Z).
//
// The acceptance threshold is a backward-error bound: a computed solution of the linear
// system on the correct basis has ‖M z + q − w‖ ≲ c n ε (‖M‖ ‖z‖ + ‖q‖), and the natural-map
// residual max_j |min(z_j, w_j)| of the projected pair is of the same size. κ leaves room
// for the growth of a partial-pivoting LU on the moderate-size problems of a circuit step.
//
// Reference: AB08 = V. Acary, B. Brogliato, "Numerical Methods for Nonsmooth Dynamical
// Systems", Springer 2008, §12.4; Cottle, Pang, Stone (1992) ch. 1 and 4.
#pragma once
#include <Eigen/Core>
#include <optional>
#include <string>
#include <vector>

#include "solvers/lcp/lcp.hpp"

namespace nsspice::solvers {

// True if M is square, matches q, and all entries are finite.
bool lcp_data_valid(const Eigen::MatrixXd& M, const Eigen::VectorXd& q);

// The options the pivoting methods share (Lemke, Murty): empty when valid, else the field, its
// value and the allowed range.
std::string validate_pivoting_options(int max_pivots, double zero_tol, double accept_residual);

// The result of a solve refused before computing: kInvalidInput for options (`options_error`)
// or sizes, kNumericalFailure for NaN/Inf entries; nullopt when the input is acceptable.
std::optional<LcpResult> reject_input(const std::string& options_error, const Eigen::MatrixXd& M,
                                      const Eigen::VectorXd& q);

// ‖M‖∞ (maximum absolute row sum); 0 for an empty matrix.
double inf_norm(const Eigen::MatrixXd& M);

// scale(z) and accept(z) of the header, with m_inf = ‖M‖∞.
double lcp_scale(double m_inf, const Eigen::VectorXd& q, const Eigen::VectorXd& z);
double derived_accept(double m_inf, const Eigen::VectorXd& q, const Eigen::VectorXd& z);

// The trivial solution z = 0, w = q (valid when q ≥ 0), with status kSolved.
LcpResult trivial_solution(const Eigen::VectorXd& q);

// What every solver does first: rejects invalid options (`options_error`, from validate()) or
// sizes (kInvalidInput with the message) and non-finite data (kNumericalFailure), and answers
// q ≥ 0 (or n = 0) with the trivial solution; nullopt: go on solving.
std::optional<LcpResult> early_result(const std::string& options_error, const Eigen::MatrixXd& M,
                                      const Eigen::VectorXd& q, bool answer_trivial = true);

// Sets z = max(0, candidate), w = M z + q, residual; z_basic[j] = (z_j > w_j).
void set_candidate(const Eigen::MatrixXd& M, const Eigen::VectorXd& q,
                   const Eigen::VectorXd& candidate, LcpResult& result);

// Solves M_ZZ z_Z = −q_Z on the basis `z_basic` as a correction of the current result.z
// (z_Z = z0_Z + δ, M_ZZ δ = −q_Z − M_ZZ z0_Z: one step of iterative refinement when z0 is a
// tableau value, the exact basis solution from an iterate). δ by partial-pivoting LU; if its
// residual exceeds accept, M_ZZ is treated as singular and δ is the minimum-norm
// least-squares correction (complete orthogonal decomposition), which keeps a nearly
// converged iterate in the solution set. z_Z̄ = 0, z projected onto z ≥ 0. Replaces the
// result's (z, w, residual, z_basic) if the residual is smaller; returns true if it did.
bool polish_on_basis(const Eigen::MatrixXd& M, const Eigen::VectorXd& q,
                     const std::vector<char>& z_basic, LcpResult& result);

// kSolved if result.residual ≤ (accept > 0 ? accept : derived_accept(...)), else `otherwise`.
void classify(double m_inf, const Eigen::VectorXd& q, double accept, LcpStatus otherwise,
              LcpResult& result);

}  // namespace nsspice::solvers
