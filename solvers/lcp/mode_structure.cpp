// The step-size independent parts of the mode systems K(σ) (mode_structure.hpp).
#include "solvers/lcp/mode_structure.hpp"

#include <algorithm>
#include <cmath>
#include <map>

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

// α with u = α v for two sparse vectors of one pattern (entries to 1e-12 relative), else 0.
double ratio_of(const int* ui, const double* uv, int un, const int* vi, const double* vv, int vn) {
  if (un == 0 || un != vn || !std::equal(ui, ui + un, vi)) return 0.0;
  const double alpha = uv[0] / vv[0];
  if (!std::isfinite(alpha) || alpha == 0.0) return 0.0;
  for (int p = 0; p < un; ++p)
    if (std::abs(uv[p] - alpha * vv[p]) > 1e-12 * std::abs(uv[p])) return 0.0;
  return alpha;
}

// True when pair j's row and column of D hold nothing but D_jj (explicit zeros allowed), and
// D_jj = 0 when `zero_diagonal`.
bool d_only_diagonal(const ModeStructure::RowMatrix& d_rows, const SparseMatrix& d, int j,
                     bool zero_diagonal) {
  for (ModeStructure::RowMatrix::InnerIterator it(d_rows, j); it; ++it)
    if (it.value() != 0.0 && (it.col() != j || zero_diagonal || it.value() < 0.0)) return false;
  for (SparseMatrix::InnerIterator it(d, j); it; ++it)
    if (it.value() != 0.0 && it.row() != j) return false;
  return true;
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
  find_shadows();
}

void ModeStructure::find_shadows() {
  // An ideal switch s (on row C_s x = −d_s: D_s = 0) and a free pair j with C_j = α C_s and
  // B_j = β B_s (a diode across the switch), λ_s and λ_j in no other pair's row: while s is on,
  // w_j = D_jj λ_j + d_j − α d_s, and any solution with λ_j > 0 has a twin with λ_j = 0 and
  // λ_s + β λ_j through the switch (the same x). Holding j off then leaves the solution set's x
  // unchanged when d_j − α d_s ≥ 0 (ModeMlcp::hold_pairs), and removes the degenerate pair
  // (λ_j = w_j = 0 for an ideal diode) and the singular modes with both on.
  shadow.assign(static_cast<size_t>(m), -1);
  shadow_ratio.assign(static_cast<size_t>(m), 0.0);
  auto c_pattern = [&](int j) {
    const int* inner = c_rows.innerIndexPtr();
    return std::vector<int>(inner + c_rows.outerIndexPtr()[j],
                            inner + c_rows.outerIndexPtr()[j + 1]);
  };
  std::map<std::vector<int>, std::vector<int>> switches;  // C_s's pattern → switches
  for (int s = 0; s < m; ++s)
    if (forced[static_cast<size_t>(s)] && d_only_diagonal(d_rows, d, s, true))
      switches[c_pattern(s)].push_back(s);
  if (switches.empty()) return;
  auto row = [&](int j) {
    const int p = c_rows.outerIndexPtr()[j];
    return std::make_tuple(c_rows.innerIndexPtr() + p, c_rows.valuePtr() + p,
                           c_rows.outerIndexPtr()[j + 1] - p);
  };
  auto column = [&](int j) {
    const int p = b.outerIndexPtr()[j];
    return std::make_tuple(b.innerIndexPtr() + p, b.valuePtr() + p, b.outerIndexPtr()[j + 1] - p);
  };
  for (int j : free) {
    if (!d_only_diagonal(d_rows, d, j, false)) continue;
    const auto it = switches.find(c_pattern(j));
    if (it == switches.end()) continue;
    for (int s : it->second) {
      const auto [ci, cv, cn] = row(j);
      const auto [si, sv, sn] = row(s);
      const auto [bi, bv, bn] = column(j);
      const auto [ti, tv, tn] = column(s);
      const double alpha = ratio_of(ci, cv, cn, si, sv, sn);
      if (alpha == 0.0 || ratio_of(bi, bv, bn, ti, tv, tn) == 0.0) continue;
      shadow[static_cast<size_t>(j)] = s;
      shadow_ratio[static_cast<size_t>(j)] = alpha;
      any_shadow = true;
      break;
    }
  }
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
  return bytes_held + static_cast<double>(5 * m) * sizeof(double);
}

}  // namespace nsspice::solvers
