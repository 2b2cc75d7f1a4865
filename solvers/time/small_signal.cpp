#include "solvers/time/small_signal.hpp"

#include <cmath>

namespace nsspice::solvers {
namespace {

using Triplet = Eigen::Triplet<std::complex<double>, int>;

// Entries of K(σ): the real part holds the ω-independent values, the imaginary part E's.
std::vector<Triplet> entries(const Mlcs& m, const std::vector<char>& mode) {
  const int n = m.n;
  std::vector<Triplet> t;
  auto add = [&](const SparseMatrix& a, int row0, int col0, double sign, bool imaginary,
                 auto&& keep_row) {
    for (int k = 0; k < a.outerSize(); ++k)
      for (SparseMatrix::InnerIterator it(a, k); it; ++it) {
        if (!keep_row(static_cast<int>(it.row()))) continue;
        const double v = sign * it.value();
        t.emplace_back(row0 + static_cast<int>(it.row()), col0 + static_cast<int>(it.col()),
                       imaginary ? std::complex<double>(0, v) : std::complex<double>(v, 0));
      }
  };
  const auto all = [](int) { return true; };
  const auto on = [&](int j) { return mode[static_cast<size_t>(j)] != 0; };
  const auto off = [&](int j) { return mode[static_cast<size_t>(j)] == 0; };
  add(m.G, 0, 0, 1.0, false, all);
  add(m.E, 0, 0, 1.0, true, all);
  add(m.B, 0, n, -1.0, false, all);
  add(m.C, n, 0, 1.0, false, on);
  add(m.D, n, n, 1.0, false, on);
  add(m.C_off, n, 0, 1.0, false, off);
  for (int j = 0; j < m.m; ++j)
    if (off(j)) t.emplace_back(n + j, n + j, std::complex<double>(1, 0));
  return t;
}

}  // namespace

SmallSignal::SmallSignal(const Mlcs& mlcs, const std::vector<char>& mode) : n_(mlcs.n), m_(mlcs.m) {
  const auto t = entries(mlcs, mode);
  k_.resize(n_ + m_, n_ + m_);
  k_.setFromTriplets(t.begin(), t.end());
  k_.makeCompressed();
  const auto nnz = static_cast<size_t>(k_.nonZeros());
  k0_.resize(nnz);
  e_.resize(nnz);
  for (size_t p = 0; p < nnz; ++p) {
    k0_[p] = k_.valuePtr()[p].real();
    e_[p] = k_.valuePtr()[p].imag();
  }
}

bool SmallSignal::solve(double omega, const Eigen::VectorXcd& u, Eigen::VectorXcd& x,
                        Eigen::VectorXcd& lambda) {
  for (size_t p = 0; p < k0_.size(); ++p) k_.valuePtr()[p] = {k0_[p], omega * e_[p]};
  if (!analyzed_) {
    lu_.analyzePattern(k_);
    analyzed_ = true;
  }
  lu_.factorize(k_);
  if (lu_.info() != Eigen::Success) return false;
  Eigen::VectorXcd rho = Eigen::VectorXcd::Zero(n_ + m_);
  rho.head(n_) = u;
  const Eigen::VectorXcd sol = lu_.solve(rho);
  if (lu_.info() != Eigen::Success || !sol.allFinite()) return false;
  // The residual, apart from the factorization.
  double k_norm = 0;
  Eigen::VectorXd row_sums = Eigen::VectorXd::Zero(n_ + m_);
  for (int k = 0; k < k_.outerSize(); ++k)
    for (ComplexSparse::InnerIterator it(k_, k); it; ++it)
      row_sums[it.row()] += std::abs(it.value());
  if (n_ + m_ > 0) k_norm = row_sums.maxCoeff();
  const Eigen::VectorXcd r = k_ * sol - rho;
  const double scale = k_norm * sol.cwiseAbs().maxCoeff() + rho.cwiseAbs().maxCoeff();
  residual_ = scale > 0 ? r.cwiseAbs().maxCoeff() / scale : 0.0;
  // A numerically singular K (a pivot lost to round-off) shows here.
  if (!(residual_ <= 1e-8)) return false;
  x = sol.head(n_);
  lambda = sol.tail(m_);
  return true;
}

}  // namespace nsspice::solvers
