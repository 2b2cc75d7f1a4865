// Singular part of a sparse matrix (singular_block.hpp states the method).
#include "solvers/linear/singular_block.hpp"

#include <btf.h>
#include <klu.h>

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <queue>
#include <set>

namespace nsspice::solvers {
namespace {

using Sparse = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;

std::vector<int> sorted(const std::set<int>& s) { return {s.begin(), s.end()}; }

bool overflow(const Sparse& a, const Eigen::Ref<const Eigen::VectorXd>& rhs, SingularBlock& out) {
  std::set<int> rows, columns;
  for (int c = 0; c < a.outerSize(); ++c) {
    for (Sparse::InnerIterator it(a, c); it; ++it) {
      if (std::fabs(it.value()) <= kOverflowMagnitude) continue;  // NaN fails this too
      rows.insert(it.row());
      columns.insert(c);
    }
  }
  for (Eigen::Index r = 0; r < rhs.size(); ++r) {
    if (!(std::fabs(rhs[r]) <= kOverflowMagnitude)) rows.insert(static_cast<int>(r));
  }
  if (rows.empty() && columns.empty()) return false;
  out.kind = SingularBlock::Kind::kOverflow;
  out.rows = sorted(rows);
  out.columns = sorted(columns);
  return true;
}

// Dulmage–Mendelsohn coarse blocks reached from the unmatched rows and columns.
void structural_blocks(const Sparse& a, const std::vector<int>& row_match, SingularBlock& out) {
  const int n = static_cast<int>(a.rows());
  std::vector<int> col_match(static_cast<std::size_t>(n), -1);
  for (int r = 0; r < n; ++r) {
    if (row_match[static_cast<std::size_t>(r)] >= 0)
      col_match[static_cast<std::size_t>(row_match[static_cast<std::size_t>(r)])] = r;
  }
  std::set<int> rows, columns;
  // Underdetermined: from unmatched columns through their rows to the rows' matched columns.
  std::queue<int> todo;
  for (int c = 0; c < n; ++c) {
    if (col_match[static_cast<std::size_t>(c)] < 0 && columns.insert(c).second) todo.push(c);
  }
  while (!todo.empty()) {
    const int c = todo.front();
    todo.pop();
    for (Sparse::InnerIterator it(a, c); it; ++it) {
      if (!rows.insert(it.row()).second) continue;
      const int next = row_match[static_cast<std::size_t>(it.row())];
      if (next >= 0 && columns.insert(next).second) todo.push(next);
    }
  }
  // Overdetermined: from unmatched rows through their columns to the columns' matched rows.
  const Sparse at = a.transpose();
  for (int r = 0; r < n; ++r) {
    if (row_match[static_cast<std::size_t>(r)] < 0 && rows.insert(r).second) todo.push(r);
  }
  while (!todo.empty()) {
    const int r = todo.front();
    todo.pop();
    for (Sparse::InnerIterator it(at, r); it; ++it) {
      const int c = static_cast<int>(it.row());
      if (!columns.insert(c).second) continue;
      const int next = col_match[static_cast<std::size_t>(c)];
      if (next >= 0 && rows.insert(next).second) todo.push(next);
    }
  }
  out.rows = sorted(rows);
  out.columns = sorted(columns);
}

// Indices whose component in some basis vector of `kernel` is above 1e-9 of its largest one.
std::vector<int> support(const Eigen::MatrixXd& kernel) {
  std::set<int> out;
  for (Eigen::Index k = 0; k < kernel.cols(); ++k) {
    const double big = kernel.col(k).cwiseAbs().maxCoeff();
    if (!(big > 0)) continue;
    for (Eigen::Index i = 0; i < kernel.rows(); ++i) {
      if (std::fabs(kernel(i, k)) > 1e-9 * big) out.insert(static_cast<int>(i));
    }
  }
  return sorted(out);
}

// Relative pivot threshold of the dense diagnosis (KLU treats rcond < 1e-14 as singular).
constexpr double kDenseRankThreshold = 1e-14;

void numerical_dense(const Sparse& a, SingularBlock& out) {
  // Rows, then columns, scaled to a largest entry of 1, as the factorization's singularity test
  // sees them (klu_lu.hpp, kKluSingularRcond): the rank decision does not depend on the units
  // of the unknowns, and diagonal scalings leave the supports of both null spaces unchanged.
  Eigen::MatrixXd dense(a);
  for (Eigen::Index i = 0; i < dense.rows(); ++i)
    if (const double m = dense.row(i).cwiseAbs().maxCoeff(); m > 0) dense.row(i) /= m;
  for (Eigen::Index j = 0; j < dense.cols(); ++j)
    if (const double m = dense.col(j).cwiseAbs().maxCoeff(); m > 0) dense.col(j) /= m;
  Eigen::FullPivLU<Eigen::MatrixXd> lu(dense);
  lu.setThreshold(kDenseRankThreshold);
  if (lu.rank() == dense.rows()) {
    // Ill-conditioned rather than rank deficient: the smallest pivot's row and column, if
    // it is below KLU's threshold (klu_lu.hpp: kKluSingularRcond = 1e-14) relative to the
    // largest.
    const Eigen::Index last = dense.rows() - 1;
    const Eigen::VectorXd pivots = lu.matrixLU().diagonal().cwiseAbs();
    if (pivots[last] >= 1e-14 * pivots.maxCoeff()) return;
    out.columns = {static_cast<int>(lu.permutationQ().indices()[last])};
    // P A Q = L U: row i of A is row P.indices()[i] of P A; column k of A Q is column
    // Q.indices()[k] of A.
    const auto& p = lu.permutationP().indices();
    for (Eigen::Index i = 0; i < p.size(); ++i) {
      if (p[i] == last) out.rows = {static_cast<int>(i)};
    }
    return;
  }
  out.columns = support(lu.kernel());
  Eigen::FullPivLU<Eigen::MatrixXd> left(dense.transpose());
  left.setThreshold(kDenseRankThreshold);
  out.rows = support(left.kernel());
}

// KLU's first zero pivot: one column of the original matrix (no row).
void numerical_klu(const Sparse& a, SingularBlock& out) {
  klu_common common;
  klu_defaults(&common);
  common.halt_if_singular = 1;
  const int n = static_cast<int>(a.rows());
  auto* ap = const_cast<int*>(a.outerIndexPtr());
  auto* ai = const_cast<int*>(a.innerIndexPtr());
  auto* ax = const_cast<double*>(a.valuePtr());
  klu_symbolic* symbolic = klu_analyze(n, ap, ai, &common);
  if (symbolic == nullptr) return;
  klu_numeric* numeric = klu_factor(ap, ai, ax, symbolic, &common);
  if (common.singular_col >= 0 && common.singular_col < n) out.columns = {common.singular_col};
  if (numeric != nullptr) klu_free_numeric(&numeric, &common);
  klu_free_symbolic(&symbolic, &common);
}

}  // namespace

SingularBlock find_singular_block(const Sparse& a, const Eigen::Ref<const Eigen::VectorXd>& rhs) {
  SingularBlock out;
  const int n = static_cast<int>(a.rows());
  if (a.cols() != n || !a.isCompressed() || n == 0) return out;
  if (overflow(a, rhs, out)) return out;
  std::vector<int> row_match(static_cast<std::size_t>(n), -1);
  std::vector<int> work(5 * static_cast<std::size_t>(n));
  double done = 0;
  out.structural_rank =
      btf_maxtrans(n, n, const_cast<int*>(a.outerIndexPtr()), const_cast<int*>(a.innerIndexPtr()),
                   0.0, &done, row_match.data(), work.data());
  if (out.structural_rank < n) {
    out.kind = SingularBlock::Kind::kStructural;
    structural_blocks(a, row_match, out);
    return out;
  }
  out.kind = SingularBlock::Kind::kNumerical;
  if (n <= kDenseDiagnosisMax) {
    numerical_dense(a, out);
  } else {
    numerical_klu(a, out);
  }
  if (out.columns.empty() && out.rows.empty()) out.kind = SingularBlock::Kind::kNonsingular;
  return out;
}

}  // namespace nsspice::solvers
