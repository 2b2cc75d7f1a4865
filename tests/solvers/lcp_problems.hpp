// Generators of the LCP test problems: the stored dumps of tests/data/lcp/ (regenerated and
// compared by lcp_dump_test.cpp) and the random families with fixed seeds.
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <cstdint>
#include <string>
#include <vector>

#include "solvers/lcp/lcp_dump.hpp"

namespace nsspice::solvers::testing {

// A compressed sparse matrix from triplets (duplicates summed).
SparseMatrix sparse(int rows, int cols, const std::vector<Eigen::Triplet<double, int>>& t);

// A problem and a solution built in (when known): z_star, w_star = M z_star + q.
struct LcpProblem {
  std::string name;
  Eigen::MatrixXd M;
  Eigen::VectorXd q;
  Eigen::VectorXd z_star;  // empty if not known
};

// --- The stored problems (file name = name + ".lcp") -----------------------------------------
// Siconos DiodeBridge LCS (reference/siconos README §4.3), one backward-Euler step (θ = 1,
// h = 1 µs) from x = (v_C, i_L); MLCP blocks W = I − hA, B = h B_s, C, D, r = x, d = 0.
LcpDump diode_bridge_dump(double v_c, double i_l, const std::string& name);
// AB08 circuit (c), eq. (1.23): 0 ≤ λ ⊥ w = −x₂ ≥ 0, the zero-matrix LCP M = [0], q = [−x₂].
LcpDump circuit_c_dump(double x2, const std::string& name);
// RC ladder, N sections (source 5 V – R – node 1 – R – ... – node N, C from each node to
// ground, an ideal-threshold clamp diode node → ground with VF = 0.7 V, RON = 0.1 Ω), one
// backward-Euler step at h = 1 µs from a charged profile. MLCP blocks only for large N.
LcpDump ladder_dump(int sections);
// Murty's upper-triangular example: M_ii = 1, M_ij = 2 (j > i), q = −e; least-index
// principal pivoting needs 2^n − 1 pivots.
LcpDump murty_example_dump(int n);

// All stored problems, in a fixed order: {file name without ".lcp", dump}.
std::vector<std::pair<std::string, LcpDump>> stored_problems();

// --- Random families (fixed seeds) -----------------------------------------------------------
// Symmetric PD (A Aᵀ/n + ½ I) or, with skew = true, PD non-symmetric (+ K − Kᵀ): P-matrices.
LcpProblem random_pd(int n, std::uint32_t seed, bool skew);
// Upper triangular with diagonal in [1, 2] and N(0, 4) entries above: P, neither PD nor symmetric.
LcpProblem random_triangular_p(int n, std::uint32_t seed);
// Symmetric PSD of rank ≈ n/2 with a built-in complementary solution (solvable).
LcpProblem random_psd(int n, std::uint32_t seed);
// Small-integer symmetric PD data with a degenerate built-in solution (z_j = w_j = 0 for a
// third of the indices): ties in ratio tests.
LcpProblem random_degenerate(int n, std::uint32_t seed);
// Symmetric PSD with M u = 0 for some u > 0 and uᵀq < 0: infeasible (Farkas).
LcpProblem random_infeasible(int n, std::uint32_t seed);

}  // namespace nsspice::solvers::testing
