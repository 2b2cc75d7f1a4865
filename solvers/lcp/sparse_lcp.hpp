#pragma once
// LCP(M, q) with a large sparse M, solved by the block principal pivoting of the mode iteration
// (mode_mlcp_block.cpp) without any dense m×m object:
//
//   find z ≥ 0 with w = M z + q ≥ 0, zᵀw = 0,
//
// posed as the MLCP  x − M z = 0,  w = x + q  (W = I, B = M, C = I, D = 0, d = q), whose mode
// systems K(σ) = [I −M; rows of σ] are sparse with the pattern of M. The start is z = 0 (all
// pairs off). Guarantee: finite for P-matrices (mode_mlcp_block.cpp, Júdice & Pires 1994,
// Murty 1974); other M end on the transform of the pairs in doubt (at most kDoubtMax) with
// the auto LCP policy, or a failure status.
#include "solvers/lcp/lcp.hpp"
#include "solvers/lcp/mode_mlcp.hpp"

namespace nsspice::solvers {

struct SparseLcpResult {
  LcpResult lcp;        // z, w = M z + q (recomputed), z_basic, residual (lcp_residual)
  ModeMlcpStats stats;  // iterations (block_iterations), dense objects (max_dense_order), ...
  long factorizations = 0, refactorizations = 0;
};

// `dense_transform_max`: free pairs up to which the dense transform of all pairs is used
// instead (ModeMlcp::set_dense_transform_max; 0: block pivoting always).
SparseLcpResult solve_sparse_lcp(const SparseMatrix& M, const Eigen::VectorXd& q,
                                 int dense_transform_max = 0);

}  // namespace nsspice::solvers
