// The step-size independent parts of the mode systems K(σ) (mode_structure.hpp).
#include "solvers/lcp/mode_structure.hpp"

#include <algorithm>
#include <cmath>

#include "solvers/check.hpp"

namespace nsspice::solvers {
namespace {

using Triplets = std::vector<Eigen::Triplet<double, int>>;

// Entries of K(σ) for σ = all pairs on (on = true) or all off, on one common pattern.
Triplets mode_triplets(const SparseMatrix& w, const SparseMatrix& b, const SparseMatrix& c,
                       const SparseMatrix& d, const SparseMatrix& c_off, bool on) {
  const int n = static_cast<int>(w.rows());
  const int m = static_cast<int>(d.rows());
  Triplets t;
  t.reserve(w.nonZeros() + b.nonZeros() + c.nonZeros() + d.nonZeros() + c_off.nonZeros() + m);
  for (int k = 0; k < w.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(w, k); it; ++it)
      t.emplace_back(it.row(), it.col(), it.value());
  for (int k = 0; k < b.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(b, k); it; ++it)
      t.emplace_back(it.row(), n + it.col(), -it.value());
  for (int k = 0; k < c.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(c, k); it; ++it)
      t.emplace_back(n + it.row(), it.col(), on ? it.value() : 0.0);
  for (int k = 0; k < d.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(d, k); it; ++it)
      t.emplace_back(n + it.row(), n + it.col(), on ? it.value() : 0.0);
  for (int k = 0; k < c_off.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(c_off, k); it; ++it)
      t.emplace_back(n + it.row(), it.col(), on ? 0.0 : it.value());
  for (int j = 0; j < m; ++j) t.emplace_back(n + j, n + j, on ? 0.0 : 1.0);
  return t;
}

SparseMatrix from_triplets(int size, const Triplets& t) {
  SparseMatrix k(size, size);
  k.setFromTriplets(t.begin(), t.end());
  k.makeCompressed();
  return k;
}

}  // namespace

SparseMatrix mode_matrix_pattern(const SparseMatrix& w, const SparseMatrix& b,
                                 const SparseMatrix& c, const SparseMatrix& d,
                                 const SparseMatrix& c_off) {
  return from_triplets(static_cast<int>(w.rows() + d.rows()),
                       mode_triplets(w, b, c, d, c_off, true));
}

ModeStructure::ModeStructure(const SparseMatrix& w_pattern, const SparseMatrix& b_in,
                             const SparseMatrix& c_in, const SparseMatrix& d_in,
                             const SparseMatrix& c_off, std::vector<char> forced_in)
    : n(static_cast<int>(w_pattern.rows())),
      m(static_cast<int>(d_in.rows())),
      c(c_in),
      d(d_in),
      b(b_in),
      c_rows(c_in),
      d_rows(d_in),
      c_off_rows(c_off),
      forced(std::move(forced_in)) {
  SparseMatrix w = w_pattern;
  w.makeCompressed();
  w_outer.assign(w.outerIndexPtr(), w.outerIndexPtr() + n + 1);
  w_inner.assign(w.innerIndexPtr(), w.innerIndexPtr() + w.nonZeros());
  forced.resize(static_cast<size_t>(m), 0);
  for (int j = 0; j < m; ++j)
    if (!forced[static_cast<size_t>(j)]) free.push_back(j);
  k = from_triplets(n + m, mode_triplets(w, b, c, d, c_off, true));
  const SparseMatrix k_off = from_triplets(n + m, mode_triplets(w, b, c, d, c_off, false));
  on_values.assign(k.valuePtr(), k.valuePtr() + k.nonZeros());
  off_values.assign(k_off.valuePtr(), k_off.valuePtr() + k_off.nonZeros());
  // W's block of K: in column col < n, the rows < n come first, in W's order.
  w_position.assign(static_cast<size_t>(k.nonZeros()), -1);
  for (int col = 0; col < n; ++col) {
    int q = w_outer[col];
    for (int p = k.outerIndexPtr()[col]; p < k.outerIndexPtr()[col + 1]; ++p)
      if (k.innerIndexPtr()[p] < n) w_position[p] = q++;
    NSSPICE_CHECK(q == w_outer[col + 1], "ModeStructure: W's block does not match W's pattern");
  }
  c_row_norm = Eigen::VectorXd::Zero(m);
  d_row_norm = Eigen::VectorXd::Zero(m);
  for (int col = 0; col < c.outerSize(); ++col)
    for (SparseMatrix::InnerIterator it(c, col); it; ++it)
      c_row_norm[it.row()] += std::abs(it.value());
  for (int col = 0; col < d.outerSize(); ++col)
    for (SparseMatrix::InnerIterator it(d, col); it; ++it)
      d_row_norm[it.row()] += std::abs(it.value());
  b_col_max = Eigen::VectorXd::Zero(m);
  for (int col = 0; col < b.outerSize(); ++col)
    for (SparseMatrix::InnerIterator it(b, col); it; ++it)
      b_col_max[it.col()] = std::max(b_col_max[it.col()], std::abs(it.value()));
}

bool ModeStructure::fits(const SparseMatrix& w) const {
  if (!w.isCompressed() || w.rows() != n || w.cols() != n ||
      static_cast<size_t>(w.nonZeros()) != w_inner.size())
    return false;
  return std::equal(w_outer.begin(), w_outer.end(), w.outerIndexPtr()) &&
         std::equal(w_inner.begin(), w_inner.end(), w.innerIndexPtr());
}

void ModeStructure::set_values(const std::vector<char>& mode, const SparseMatrix& w) {
  const int* outer = k.outerIndexPtr();
  const int* inner = k.innerIndexPtr();
  double* values = k.valuePtr();
  const double* w_values = w.valuePtr();
  for (int col = 0; col < n + m; ++col) {
    for (int p = outer[col]; p < outer[col + 1]; ++p) {
      const int row = inner[p];
      const int q = w_position[static_cast<size_t>(p)];
      values[p] = q >= 0                         ? w_values[q]
                  : (row >= n && !mode[row - n]) ? off_values[p]
                                                 : on_values[p];
    }
  }
}

double ModeStructure::bytes() const {
  auto sparse = [](const auto& a) {
    return static_cast<double>(a.nonZeros()) * (sizeof(double) + sizeof(int)) +
           static_cast<double>(a.outerSize() + 1) * sizeof(int);
  };
  double bytes_held = sparse(c) + sparse(d) + sparse(b) + sparse(c_rows) + sparse(d_rows) +
                      sparse(c_off_rows) + sparse(k);
  bytes_held += static_cast<double>(on_values.size() + off_values.size()) * sizeof(double);
  bytes_held +=
      static_cast<double>(w_position.size() + w_outer.size() + w_inner.size()) * sizeof(int);
  return bytes_held + static_cast<double>(3 * m) * sizeof(double);
}

}  // namespace nsspice::solvers
