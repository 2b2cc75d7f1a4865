#include "solvers/time/radau_iia.hpp"

#include <Eigen/LU>
#include <cmath>
#include <vector>

#include "solvers/linear/triplets.hpp"

namespace nsspice::solvers {
namespace {

// Adds s·a to block (bi, bj) of a 3N × 3N matrix.
void add_block(Triplets& t, const SparseMatrix& a, int n, int bi, int bj, double s) {
  append_scaled(t, a, bi * n, bj * n, s);
}

}  // namespace

std::array<double, 4> RadauStep::weights(double s) {
  // Lagrange basis on the nodes (0, c1, c2, 1).
  const std::array<double, 4> nodes = {0.0, RadauIIA::kC[0], RadauIIA::kC[1], 1.0};
  std::array<double, 4> w{};
  for (int k = 0; k < 4; ++k) {
    double v = 1;
    for (int l = 0; l < 4; ++l)
      if (l != k) v *= (s - nodes[l]) / (nodes[k] - nodes[l]);
    w[k] = v;
  }
  return w;
}

std::array<double, 4> RadauStep::slopes(double s) {
  // d/ds of the Lagrange basis: Σ_{m≠k} 1/(n_k − n_m) Π_{l≠k,m} (s − n_l)/(n_k − n_l).
  const std::array<double, 4> nodes = {0.0, RadauIIA::kC[0], RadauIIA::kC[1], 1.0};
  std::array<double, 4> d{};
  for (int k = 0; k < 4; ++k) {
    for (int m = 0; m < 4; ++m) {
      if (m == k) continue;
      double v = 1 / (nodes[k] - nodes[m]);
      for (int l = 0; l < 4; ++l)
        if (l != k && l != m) v *= (s - nodes[l]) / (nodes[k] - nodes[l]);
      d[k] += v;
    }
  }
  return d;
}

void RadauStep::rate(double s, Eigen::VectorXd& out) const {
  const auto d = slopes(s);
  out = (d[0] * z0 + d[1] * z[0] + d[2] * z[1] + d[3] * z[2]) / h;
}

void RadauStep::dense(double s, Eigen::VectorXd& out) const {
  const auto w = weights(s);
  out = w[0] * z0 + w[1] * z[0] + w[2] * z[1] + w[3] * z[2];
}

RadauIIA::RadauIIA(const SparseMatrix& m, const SparseMatrix& j_pattern, int cache_capacity)
    : n_(static_cast<int>(m.rows())), m_(m), capacity_(cache_capacity < 2 ? 2 : cache_capacity) {
  const double s6 = std::sqrt(6.0);
  Eigen::Matrix3d a;
  a << (88 - 7 * s6) / 360, (296 - 169 * s6) / 1800, (-2 + 3 * s6) / 225,  //
      (296 + 169 * s6) / 1800, (88 + 7 * s6) / 360, (-2 - 3 * s6) / 225,   //
      (16 - s6) / 36, (16 + s6) / 36, 1.0 / 9;
  const Eigen::Matrix3d ainv = a.inverse();
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) ainv_[i][k] = ainv(i, k);
  // The pattern: M in all nine blocks, J in the diagonal ones (explicit zeros kept).
  Triplets t;
  for (int bi = 0; bi < 3; ++bi) {
    for (int bj = 0; bj < 3; ++bj) add_block(t, m_, n_, bi, bj, 0.0);
    add_block(t, j_pattern, n_, bi, bi, 0.0);
  }
  pattern_.resize(3 * n_, 3 * n_);
  pattern_.setFromTriplets(t.begin(), t.end());
  pattern_.makeCompressed();
  symbolic_.analyze(pattern_);
}

RadauIIA::~RadauIIA() = default;

void RadauIIA::set_j(const SparseMatrix& j, long id) {
  if (id == id_) return;
  j_ = j;
  id_ = id;
}

const KluFactor* RadauIIA::factor_for(double h) {
  for (auto it = cache_.begin(); it != cache_.end(); ++it) {
    if (it->id != id_ || it->h != h) continue;
    cache_.splice(cache_.begin(), cache_, it);
    return &cache_.front().factor;
  }
  // Σ_j (A⁻¹)_ij / h · M in block (i, j), − J on the diagonal, on the fixed pattern.
  Triplets t;
  t.reserve(static_cast<size_t>(pattern_.nonZeros()) + 3 * static_cast<size_t>(j_.nonZeros()));
  for (int col = 0; col < pattern_.outerSize(); ++col)
    for (SparseMatrix::InnerIterator it(pattern_, col); it; ++it) t.emplace_back(it.row(), col, 0);
  for (int bi = 0; bi < 3; ++bi) {
    for (int bj = 0; bj < 3; ++bj) add_block(t, m_, n_, bi, bj, ainv_[bi][bj] / h);
    add_block(t, j_, n_, bi, bi, -1.0);
  }
  SparseMatrix a(3 * n_, 3 * n_);
  a.setFromTriplets(t.begin(), t.end());
  a.makeCompressed();
  if (static_cast<int>(cache_.size()) >= capacity_) cache_.pop_back();
  cache_.push_front(Cached{id_, h, KluFactor{}});
  ++stats_.factorizations;
  if (cache_.front().factor.factor(symbolic_, a) != LuStatus::kOk) {
    cache_.pop_front();
    return nullptr;
  }
  return &cache_.front().factor;
}

bool RadauIIA::step(double t0, double h, const Eigen::VectorXd& z0,
                    const std::function<void(double, Eigen::VectorXd&)>& f, RadauStep& out) {
  const KluFactor* lu = factor_for(h);
  if (!lu) return false;
  ++stats_.steps;
  jz0_.noalias() = j_ * z0;
  rhs_.resize(3 * n_);
  for (int i = 0; i < 3; ++i) {
    f(t0 + kC[static_cast<size_t>(i)] * h, fz_);
    rhs_.segment(i * n_, n_) = jz0_ + fz_;
  }
  lu->solve(rhs_);
  out.t0 = t0;
  out.h = h;
  out.z0 = z0;
  for (int i = 0; i < 3; ++i) out.z[static_cast<size_t>(i)] = z0 + rhs_.segment(i * n_, n_);
  return true;
}

}  // namespace nsspice::solvers
