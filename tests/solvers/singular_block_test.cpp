// find_singular_block: overflow, structural (Dulmage–Mendelsohn blocks from a maximum
// matching) and numerical (null spaces) singular parts of small matrices, exactly known.
#include "solvers/linear/singular_block.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace nsspice::solvers {
namespace {

using Sparse = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;
using Kind = SingularBlock::Kind;

Sparse sparse(const Eigen::MatrixXd& dense) {
  Sparse m = dense.sparseView(0.0, 0.0);
  m.makeCompressed();
  return m;
}

TEST(SingularBlock, NonsingularMatrix) {
  Eigen::MatrixXd a(2, 2);
  a << 2, 1, 1, 3;
  const SingularBlock b = find_singular_block(sparse(a));
  EXPECT_EQ(b.kind, Kind::kNonsingular);
  EXPECT_EQ(b.structural_rank, 2);
  EXPECT_TRUE(b.columns.empty());
  EXPECT_TRUE(b.rows.empty());
}

TEST(SingularBlock, ZeroColumnIsStructural) {
  // Unknown 1 appears in no equation; equation 2 then has only unknown 0 left, as equation 0.
  Eigen::MatrixXd a(3, 3);
  a << 1, 0, 0,  //
      0, 0, 1,   //
      1, 0, 0;
  const SingularBlock b = find_singular_block(sparse(a));
  EXPECT_EQ(b.kind, Kind::kStructural);
  EXPECT_EQ(b.structural_rank, 2);
  EXPECT_EQ(b.columns, (std::vector<int>{0, 1}));  // 1 unmatched; 0 shared by rows 0 and 2
  EXPECT_EQ(b.rows, (std::vector<int>{0, 2}));     // rows 0 and 2 compete for unknown 0
}

TEST(SingularBlock, RankDeficientValuesAreNumerical) {
  // Rows 1 and 2 are equal (two voltage sources across the same nodes); unknown 0 is fine.
  Eigen::MatrixXd a(3, 3);
  a << 4, 0, 0,  //
      0, 1, 1,   //
      0, 1, 1;
  const SingularBlock b = find_singular_block(sparse(a));
  EXPECT_EQ(b.kind, Kind::kNumerical);
  EXPECT_EQ(b.structural_rank, 3);
  EXPECT_EQ(b.columns, (std::vector<int>{1, 2}));  // null space (0, 1, −1)
  EXPECT_EQ(b.rows, (std::vector<int>{1, 2}));     // left null space (0, 1, −1)
}

// Nearly dependent columns: the last pivot 1e-15 of the equilibrated matrix is below the
// threshold 1e-14; at 1e-13 it is above. A tiny entry that only scaling makes small is not
// singular (the factorization's test equilibrates the same way, klu_lu.hpp).
TEST(SingularBlock, IllConditionedBelowKluThresholdIsNumerical) {
  Eigen::MatrixXd a(2, 2);
  a << 1, 1, 1, 1 + 1e-15;
  const SingularBlock b = find_singular_block(sparse(a));
  EXPECT_EQ(b.kind, Kind::kNumerical);
  EXPECT_EQ(b.columns, (std::vector<int>{0, 1}));  // the null space (1, −1) and its left one
  EXPECT_EQ(b.rows, (std::vector<int>{0, 1}));
  a(1, 1) = 1 + 1e-13;  // above the threshold: nonsingular
  EXPECT_EQ(find_singular_block(sparse(a)).kind, Kind::kNonsingular);
  a << 1, 0, 0, 1e-16;  // a column in other units: nonsingular
  EXPECT_EQ(find_singular_block(sparse(a)).kind, Kind::kNonsingular);
}

TEST(SingularBlock, NonFiniteOrHugeEntriesAreOverflow) {
  Eigen::MatrixXd a(2, 2);
  a << 1, 0, 0, std::numeric_limits<double>::infinity();
  SingularBlock b = find_singular_block(sparse(a));
  EXPECT_EQ(b.kind, Kind::kOverflow);
  EXPECT_EQ(b.columns, (std::vector<int>{1}));
  EXPECT_EQ(b.rows, (std::vector<int>{1}));
  a(1, 1) = 1e308;  // finite, but beyond kOverflowMagnitude
  EXPECT_EQ(find_singular_block(sparse(a)).kind, Kind::kOverflow);
  a(1, 1) = 1;
  Eigen::VectorXd rhs(2);
  rhs << std::nan(""), 0;
  b = find_singular_block(sparse(a), rhs);
  EXPECT_EQ(b.kind, Kind::kOverflow);
  EXPECT_TRUE(b.columns.empty());
  EXPECT_EQ(b.rows, (std::vector<int>{0}));
}

TEST(SingularBlock, LargeMatrixUsesKluZeroPivot) {
  // n > kDenseDiagnosisMax: a tridiagonal matrix with column 700 equal to column 699.
  const int n = kDenseDiagnosisMax + 200;
  std::vector<Eigen::Triplet<double, int>> t;
  for (int i = 0; i < n; ++i) {
    t.emplace_back(i, i, 4.0);
    if (i > 0) t.emplace_back(i, i - 1, -1.0);
    if (i + 1 < n) t.emplace_back(i, i + 1, -1.0);
  }
  Sparse a(n, n);
  a.setFromTriplets(t.begin(), t.end());
  Eigen::MatrixXd col = Eigen::MatrixXd(a.col(699));
  for (int i = 0; i < n; ++i) a.coeffRef(i, 700) = col(i, 0);
  a.prune(0.0);
  a.makeCompressed();
  const SingularBlock b = find_singular_block(a);
  EXPECT_EQ(b.kind, Kind::kNumerical);
  ASSERT_EQ(b.columns.size(), 1u);
  EXPECT_TRUE(b.columns[0] == 699 || b.columns[0] == 700) << b.columns[0];
}

}  // namespace
}  // namespace nsspice::solvers
