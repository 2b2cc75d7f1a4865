// The step-size independent parts of the mode systems K(σ) (mode_structure.hpp).
#include "solvers/lcp/mode_structure.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "solvers/check.hpp"

namespace nsspice::solvers {
namespace {

using Triplets = std::vector<Eigen::Triplet<double, int>>;

// The diagonal of D by pair, and whether the pair's D row or column holds anything else (explicit
// zeros count as absent): what both the condensed pairs and the pairs across switches are
// recognised by.
struct DiagonalOnly {
  std::vector<double> diag;
  std::vector<char> other;
  // Pair j's D row and column hold nothing but D_jj, and D_jj = 0 when `zero_diagonal`, else
  // D_jj ≥ 0.
  bool holds(int j, bool zero_diagonal) const {
    const double dj = diag[static_cast<size_t>(j)];
    return !other[static_cast<size_t>(j)] && (zero_diagonal ? dj == 0.0 : dj >= 0.0);
  }
};

DiagonalOnly diagonal_only(const SparseMatrix& d) {
  const auto m = static_cast<size_t>(d.rows());
  DiagonalOnly out{std::vector<double>(m, 0.0), std::vector<char>(m, 0)};
  for (int k = 0; k < d.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(d, k); it; ++it) {
      if (it.value() == 0.0) continue;
      if (it.row() == it.col())
        out.diag[static_cast<size_t>(k)] = it.value();
      else
        out.other[static_cast<size_t>(it.row())] = out.other[static_cast<size_t>(it.col())] = 1;
    }
  return out;
}

// Each pair's row and column in K (n + its rank among the pairs not condensed), or −1.
std::vector<int> rows_of_pairs(int n, const std::vector<char>& condensed) {
  std::vector<int> row_of(condensed.size(), -1);
  int next = n;
  for (size_t j = 0; j < condensed.size(); ++j)
    if (!condensed[j]) row_of[j] = next++;
  return row_of;
}

// Entries of the condensed K(σ) for σ = all pairs on (on = true) or all off, on one common
// pattern: W, the stamps B_j C_j / D_jj of the condensed pairs (zero when off), and the rows and
// columns of the others.
Triplets mode_triplets(const SparseMatrix& w, const SparseMatrix& b, const SparseMatrix& c,
                       const SparseMatrix& d, const SparseMatrix& c_off,
                       const std::vector<int>& row_of, bool on) {
  const int m = static_cast<int>(d.rows());
  const ModeStructure::RowMatrix c_rows(c);
  Triplets t;
  t.reserve(w.nonZeros() + b.nonZeros() + c.nonZeros() + d.nonZeros() + c_off.nonZeros() + m);
  for (int k = 0; k < w.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(w, k); it; ++it)
      t.emplace_back(it.row(), it.col(), it.value());
  for (int j = 0; j < b.outerSize(); ++j) {
    const int r = row_of[static_cast<size_t>(j)];
    for (SparseMatrix::InnerIterator it(b, j); it; ++it) {
      if (r >= 0) {
        t.emplace_back(it.row(), r, -it.value());
        continue;
      }
      const double scale = on ? it.value() / d.coeff(j, j) : 0.0;
      for (ModeStructure::RowMatrix::InnerIterator ct(c_rows, j); ct; ++ct)
        t.emplace_back(it.row(), ct.col(), scale * ct.value());
    }
  }
  for (int k = 0; k < c.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(c, k); it; ++it)
      if (const int r = row_of[static_cast<size_t>(it.row())]; r >= 0)
        t.emplace_back(r, it.col(), on ? it.value() : 0.0);
  for (int k = 0; k < d.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(d, k); it; ++it) {
      const int r = row_of[static_cast<size_t>(it.row())], col = row_of[static_cast<size_t>(k)];
      if (r >= 0 && col >= 0) t.emplace_back(r, col, on ? it.value() : 0.0);
    }
  for (int k = 0; k < c_off.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(c_off, k); it; ++it)
      if (const int r = row_of[static_cast<size_t>(it.row())]; r >= 0)
        t.emplace_back(r, it.col(), on ? 0.0 : it.value());
  for (int j = 0; j < m; ++j)
    if (const int r = row_of[static_cast<size_t>(j)]; r >= 0) t.emplace_back(r, r, on ? 0.0 : 1.0);
  return t;
}

int order_of(int n, const std::vector<int>& row_of) {
  int order = n;
  for (int r : row_of) order = std::max(order, r + 1);
  return order;
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

}  // namespace

std::vector<char> condensed_pairs(const SparseMatrix& d, const SparseMatrix& c_off) {
  const DiagonalOnly only = diagonal_only(d);
  std::vector<char> out(static_cast<size_t>(d.rows()), 0);
  for (int j = 0; j < d.rows(); ++j) {
    const double dj = only.diag[static_cast<size_t>(j)];
    out[static_cast<size_t>(j)] = only.holds(j, false) && dj > 0.0 && std::isfinite(1.0 / dj);
  }
  for (int k = 0; k < c_off.outerSize(); ++k)  // a pair with an off row C_off x + λ = 0 stays
    for (SparseMatrix::InnerIterator it(c_off, k); it; ++it)
      if (it.value() != 0.0) out[static_cast<size_t>(it.row())] = 0;
  return out;
}

SparseMatrix mode_matrix_pattern(const SparseMatrix& w, const SparseMatrix& b,
                                 const SparseMatrix& c, const SparseMatrix& d,
                                 const SparseMatrix& c_off) {
  const int n = static_cast<int>(w.rows());
  const std::vector<int> row_of = rows_of_pairs(n, condensed_pairs(d, c_off));
  return from_triplets(order_of(n, row_of), mode_triplets(w, b, c, d, c_off, row_of, true));
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
  const std::vector<char> kink = condensed_pairs(d, c_off);
  row_of = rows_of_pairs(n, kink);
  order = order_of(n, row_of);
  pair_of_row.assign(static_cast<size_t>(order - n), -1);
  inv_d.assign(static_cast<size_t>(m), 0.0);
  for (int j = 0; j < m; ++j) {
    if (kink[static_cast<size_t>(j)]) {
      condensed.push_back(j);
      inv_d[static_cast<size_t>(j)] = 1.0 / d.coeff(j, j);
    } else {
      pair_of_row[static_cast<size_t>(row_of[static_cast<size_t>(j)] - n)] = j;
    }
  }
  k = from_triplets(order, mode_triplets(w, b, c, d, c_off, row_of, true));
  const SparseMatrix k_off = from_triplets(order, mode_triplets(w, b, c, d, c_off, row_of, false));
  on_values.assign(k.valuePtr(), k.valuePtr() + k.nonZeros());
  off_values.assign(k_off.valuePtr(), k_off.valuePtr() + k_off.nonZeros());
  // W's block of K: in column col < n, the rows < n hold W's entries (in W's order) and the
  // stamps' (−1 where W has none).
  const int* k_outer = k.outerIndexPtr();
  const int* k_inner = k.innerIndexPtr();
  w_position.assign(static_cast<size_t>(k.nonZeros()), -1);
  for (int col = 0; col < n; ++col) {
    int q = w_outer[col];
    for (int p = k_outer[col]; p < k_outer[col + 1] && k_inner[p] < n; ++p)
      if (q < w_outer[col + 1] && w_inner[q] == k_inner[p]) w_position[p] = q++;
    NSSPICE_CHECK(q == w_outer[col + 1], "ModeStructure: W's block does not match W's pattern");
  }
  // The stamps' positions in k.
  auto position = [&](int row, int col) {
    const int* first = k_inner + k_outer[col];
    const int* last = k_inner + k_outer[col + 1];
    const int* it = std::lower_bound(first, last, row);
    NSSPICE_CHECK(it != last && *it == row, "ModeStructure: a stamp is outside K's pattern");
    return static_cast<int>(it - k_inner);
  };
  stamp_start.assign(1, 0);
  for (int j : condensed) {
    for (SparseMatrix::InnerIterator it(b, j); it; ++it)
      for (RowMatrix::InnerIterator ct(c_rows, j); ct; ++ct) {
        stamp_position.push_back(position(static_cast<int>(it.row()), static_cast<int>(ct.col())));
        stamp_value.push_back(it.value() * ct.value() * inv_d[static_cast<size_t>(j)]);
      }
    stamp_start.push_back(static_cast<int>(stamp_position.size()));
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
  const DiagonalOnly only = diagonal_only(d);
  auto c_pattern = [&](int j) {
    const int* inner = c_rows.innerIndexPtr();
    return std::vector<int>(inner + c_rows.outerIndexPtr()[j],
                            inner + c_rows.outerIndexPtr()[j + 1]);
  };
  std::map<std::vector<int>, std::vector<int>> switches;  // C_s's pattern → switches
  for (int s = 0; s < m; ++s)
    if (forced[static_cast<size_t>(s)] && only.holds(s, true)) switches[c_pattern(s)].push_back(s);
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
    if (!only.holds(j, false)) continue;
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
  for (int col = 0; col < order; ++col) {
    for (int p = outer[col]; p < outer[col + 1]; ++p) {
      const int row = inner[p];
      if (row >= n) {
        values[p] = mode[pair_of_row[static_cast<size_t>(row - n)]] ? on_values[p] : off_values[p];
      } else if (col < n) {
        const int q = w_position[static_cast<size_t>(p)];
        values[p] = q >= 0 ? w_values[q] : 0.0;
      } else {
        values[p] = on_values[p];  // −B_j
      }
    }
  }
  for (size_t i = 0; i < condensed.size(); ++i) {
    if (!mode[condensed[i]]) continue;
    for (int e = stamp_start[i]; e < stamp_start[i + 1]; ++e)
      values[stamp_position[static_cast<size_t>(e)]] += stamp_value[static_cast<size_t>(e)];
  }
}

void ModeStructure::condense(const std::vector<char>& mode, const double* u, double* v) const {
  std::copy(u, u + n, v);
  for (int r = n; r < order; ++r) v[r] = u[n + pair_of_row[static_cast<size_t>(r - n)]];
  for (int j : condensed) {
    double a = u[n + j];
    if (a == 0.0) continue;
    if (mode[j]) a *= inv_d[static_cast<size_t>(j)];
    for (SparseMatrix::InnerIterator it(b, j); it; ++it) v[it.row()] += it.value() * a;
  }
}

void ModeStructure::expand(const std::vector<char>& mode, const double* v, double* u) const {
  for (int j : condensed) {
    if (!mode[j]) continue;  // λ_j = ρ_j, already in u
    double cx = 0;
    for (RowMatrix::InnerIterator it(c_rows, j); it; ++it) cx += it.value() * v[it.col()];
    u[n + j] = (u[n + j] - cx) * inv_d[static_cast<size_t>(j)];
  }
  for (int r = n; r < order; ++r) u[n + pair_of_row[static_cast<size_t>(r - n)]] = v[r];
  std::copy(v, v + n, u);
}

void ModeStructure::solve(const KluFactor& f, const std::vector<char>& mode,
                          Eigen::Ref<Eigen::VectorXd> u) {
  if (condensed.empty()) {
    f.solve(u);
    return;
  }
  scratch_.resize(order);
  condense(mode, u.data(), scratch_.data());
  f.solve(scratch_);
  expand(mode, scratch_.data(), u.data());
}

void ModeStructure::solve_many(const KluFactor& f, const std::vector<char>& mode,
                               Eigen::Ref<Eigen::MatrixXd> u) {
  if (condensed.empty()) {
    f.solve_many(u);
    return;
  }
  // (A local: the columns of a transform are solved rarely and in blocks, not kept.)
  Eigen::MatrixXd v(order, u.cols());
  for (Eigen::Index k = 0; k < u.cols(); ++k) condense(mode, u.col(k).data(), v.col(k).data());
  f.solve_many(v);
  for (Eigen::Index k = 0; k < u.cols(); ++k) expand(mode, v.col(k).data(), u.col(k).data());
}

SparseMatrix ModeStructure::full_matrix(const std::vector<char>& mode,
                                        const SparseMatrix& w) const {
  Triplets t;
  t.reserve(static_cast<size_t>(w.nonZeros() + b.nonZeros() + c.nonZeros() + d.nonZeros() + m));
  for (int col = 0; col < w.outerSize(); ++col)
    for (SparseMatrix::InnerIterator it(w, col); it; ++it)
      t.emplace_back(it.row(), it.col(), it.value());
  for (int j = 0; j < b.outerSize(); ++j)
    for (SparseMatrix::InnerIterator it(b, j); it; ++it)
      t.emplace_back(it.row(), n + j, -it.value());
  for (int j = 0; j < m; ++j) {
    if (mode[j]) {
      for (RowMatrix::InnerIterator it(c_rows, j); it; ++it)
        t.emplace_back(n + j, it.col(), it.value());
      for (RowMatrix::InnerIterator it(d_rows, j); it; ++it)
        t.emplace_back(n + j, n + it.col(), it.value());
    } else {
      for (RowMatrix::InnerIterator it(c_off_rows, j); it; ++it)
        t.emplace_back(n + j, it.col(), it.value());
      t.emplace_back(n + j, n + j, 1.0);
    }
  }
  return from_triplets(n + m, t);
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
  bytes_held += static_cast<double>(row_of.size() + pair_of_row.size() + condensed.size() +
                                    stamp_start.size() + stamp_position.size()) *
                sizeof(int);
  bytes_held += static_cast<double>(inv_d.size() + stamp_value.size()) * sizeof(double);
  bytes_held += static_cast<double>(scratch_.size()) * sizeof(double);
  return bytes_held + static_cast<double>(5 * m) * sizeof(double);
}

}  // namespace nsspice::solvers
