// Why a square sparse matrix A (n × n) cannot be factored: which unknowns (columns) and which
// equations (rows) form its singular part, so that the circuit layer can name devices.
//
//  1. Overflow: an entry of A (or of the right-hand side b) that is not finite (±inf, NaN) or
//     larger in magnitude than kOverflowMagnitude = 1e150 (a product of two such values is
//     beyond double precision, 1.8e308; the pivots' ratio then looks like a zero pivot).
//     Reported as such: the cause is a value out of range, not a singular circuit.
//  2. Structural singularity (no values can make A nonsingular): a maximum matching of rows
//     to columns (btf_maxtrans, SuiteSparse BTF) leaves some columns and rows unmatched. The
//     Dulmage–Mendelsohn coarse blocks are what alternating paths reach from them:
//       underdetermined block:  unmatched columns c → rows r with A(r,c) ≠ 0 → the column
//                               matched to r → …  (unknowns nothing determines)
//       overdetermined block:   unmatched rows r → columns c with A(r,c) ≠ 0 → the row
//                               matched to c → …  (equations that contradict or repeat)
//  3. Numerical singularity (full structural rank, rank-deficient values): for
//     n ≤ kDenseDiagnosisMax a rank-revealing dense LU (full pivoting) gives a basis of the
//     null space N of A and of the left null space of A; the unknowns with a component
//     larger than 1e-9 · max in N (what can drift freely) and the rows with such a component
//     in the left null space (the dependent equations) are the block. For larger matrices
//     KLU's first zero pivot gives one column (Common.singular_col).
// Reference: A. L. Dulmage, N. S. Mendelsohn, "Coverings of bipartite graphs", Canad. J.
// Math. 10 (1958); I. S. Duff, "On algorithms for obtaining a maximum transversal", ACM TOMS
// 7(3), 1981 (the algorithm of btf_maxtrans).
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <vector>

namespace nsspice::solvers {

inline constexpr int kDenseDiagnosisMax = 1000;
inline constexpr double kOverflowMagnitude = 1e150;

struct SingularBlock {
  enum class Kind { kNonsingular, kOverflow, kStructural, kNumerical };
  Kind kind = Kind::kNonsingular;
  // Unknowns (columns of A) and equations (rows of A) of the singular part, ascending.
  // kOverflow: the columns and rows holding non-finite entries (of A, or rows of b).
  std::vector<int> columns;
  std::vector<int> rows;
  int structural_rank = 0;  // size of the maximum matching
};

// A must be square and compressed; `rhs` (size n, or empty) is checked for overflow too.
SingularBlock find_singular_block(const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& a,
                                  const Eigen::Ref<const Eigen::VectorXd>& rhs = Eigen::VectorXd());

}  // namespace nsspice::solvers
