// Linear complementarity problem LCP(M, q), dense.
//
//   find z in R^n with   z >= 0,   w = M z + q >= 0,   z^T w = 0   (componentwise z_j w_j = 0)
//
// Reference: R. W. Cottle, J.-S. Pang, R. E. Stone, "The Linear Complementarity Problem",
// Academic Press 1992 (SIAM Classics 2009), ch. 1; V. Acary, B. Brogliato, "Numerical
// Methods for Nonsmooth Dynamical Systems" (AB08), Springer 2008, ch. 12.
#pragma once

#include <Eigen/Core>
#include <string>
#include <string_view>
#include <vector>

#include "solvers/status.hpp"

namespace nsspice::solvers {

// The outcome of an LCP solve, in the one status vocabulary of solvers/status.hpp:
//   kSolved           solution found, residual below the acceptance threshold
//   kInaccurate       terminated on a complementary basis but residual above threshold
//   kNoConvergence    pivot / iteration limit reached
//   kNumericalFailure NaN/Inf data or tableau, tiny pivot
//   kInfeasible       proof (or strong evidence, see solver docs) of no solution
//   kInvalidInput     invalid options or dimensions (message says which)
using LcpStatus = Status;

struct LcpResult {
  LcpStatus status = LcpStatus::kNumericalFailure;
  Eigen::VectorXd z, w;  // w recomputed as M z + q after the solve
  // Final complementary basis: z_basic[j] = 1 if z_j is basic (else w_j is basic).
  // Meaningful on kSolved / kInaccurate.
  std::vector<char> z_basic;
  int pivots = 0;
  double residual = 0;  // lcp_residual(z, w), computed independently of the solver
  // Iterative methods (PGS, semismooth Newton) and enumeration count here (sweeps, Newton
  // steps, bases examined); pivoting methods count in `pivots` and leave this 0.
  int iterations = 0;
  // Why a solve did not succeed (or how a degenerate success was reached); empty otherwise.
  std::string message;
};

// Natural-map residual of a candidate pair (z, w), not trusting any solver:
//   r(z, w) = || z - max(0, z - w) ||_inf = max_j | min(z_j, w_j) |.
// min(z_j, w_j) = 0  <=>  z_j >= 0, w_j >= 0, z_j w_j = 0, so r = 0 iff (z, w) satisfies
// feasibility and complementarity; a negative z_j or w_j contributes at least its
// magnitude. Returns +inf if any entry is NaN or the sizes differ.
// (The caller is responsible for w = M z + q; LcpResult::w is recomputed that way.)
double lcp_residual(const Eigen::VectorXd& z, const Eigen::VectorXd& w);

}  // namespace nsspice::solvers
