// Enumeration of the complementary bases of LCP(M, q) for small n (AB08 §12.4.2, §12.4.7).
//
// A complementary basis is a set Z ⊂ {1..n} (z_j basic for j ∈ Z, w_j basic otherwise):
//   M_ZZ z_Z = −q_Z,  z_Z̄ = 0,  w = M z + q;    it is a solution iff z_Z ≥ 0 and w_Z̄ ≥ 0.
// All 2^n sets are visited in order of increasing |Z| (then lexicographically), so the
// first solution found is one of smallest support; the search stops there.
//
// Guarantees: every matrix class. If every M_ZZ is nonsingular (e.g. M a P-matrix, or
// nondegenerate M), each basis has one candidate and "no basis feasible" proves that
// LCP(M, q) has no solution (kInfeasible, message "proof"). For a singular M_ZZ the
// minimum-norm least-squares candidate (complete orthogonal decomposition) is tried; it may
// miss a solution on that face, so then kInfeasible only reports that none was found
// (message says so). Cost: Σ_k C(n,k) k³/3 flops, so n ≤ 20 is enforced (n > max_size:
// kNumericalFailure with a message, without any work).
//
// Derived tolerances: a candidate is accepted when lcp_residual(max(0, z), M max(0, z) + q) ≤
// 10³ (n+1) ε scale (lcp_support.hpp). M_ZZ is singular when the rank of its full-pivoting
// LU with threshold 16 |Z| ε is below |Z|.
#pragma once

#include <Eigen/Core>
#include <string>

#include "solvers/lcp/lcp.hpp"

namespace nsspice::solvers {

// Hard limit on n for enumeration (2^20 bases).
inline constexpr int kEnumerationHardLimit = 20;

struct EnumerationOptions {
  int max_size = kEnumerationHardLimit;  // reject n > max_size (≤ kEnumerationHardLimit)
  double accept_residual = 0;            // 0 = derived (see the header)

  // Empty when valid, else the field out of range and its allowed range.
  std::string validate() const;
};

// Solves LCP(M, q) by enumeration. `iterations` counts the bases examined.
// Statuses: kSolved; kInfeasible (see the header); kNumericalFailure for invalid data,
// invalid options, or n > max_size.
LcpResult solve_enumeration(const Eigen::MatrixXd& M, const Eigen::VectorXd& q,
                            const EnumerationOptions& options = {});

}  // namespace nsspice::solvers
