// Growing modes of an MLCS equilibrium in a fixed mode (equilibrium_stability.hpp states the
// pencil): QZ for the eigenvalues, then two steps of inverse iteration on (J − μ̃ Ē) for the
// eigenvector of the one of largest real part (μ̃ = μ·(1 + 1e-10), off the exact eigenvalue so
// that the shifted matrix factors; the iteration converges at once).
#include "solvers/time/equilibrium_stability.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <cmath>

namespace nsspice::solvers {
namespace {

// A finite eigenvalue's real part must exceed this share of |μ| (rounding of a lossless LC
// pair's ±jω is far below it; a real oscillator's growth, 1/(2Q) of ω, far above).
constexpr double kRoundingShare = 1e-6;
// α/β is infinite (an algebraic constraint) when |β|/‖Ē‖ ≤ this times |α|/‖J‖.
constexpr double kInfiniteRatio = 1e-12;

}  // namespace

EquilibriumStability equilibrium_stability(const Mlcs& s, const std::vector<char>& mode,
                                           double min_rate) {
  EquilibriumStability out;
  const int n = s.n, m = s.m;
  const auto forced = [&](int j) { return !s.forced.empty() && s.forced[j]; };
  // Pairs whose λ is an unknown of the pencil: on, or a switch (its off row C_off x + λ = 0).
  std::vector<int> col(static_cast<size_t>(m), -1);
  int kept = 0;
  for (int j = 0; j < m; ++j)
    if (mode[j] || forced(j)) col[j] = n + kept++;
  const int order = n + kept;
  out.order = order;
  if (order > kMaxEquilibriumOrder || order == 0) return out;
  out.checked = true;

  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(order, order);
  Eigen::MatrixXd Eb = Eigen::MatrixXd::Zero(order, order);
  for (int k = 0; k < s.E.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(s.E, k); it; ++it) Eb(it.row(), it.col()) += it.value();
  for (int k = 0; k < s.G.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(s.G, k); it; ++it) J(it.row(), it.col()) -= it.value();
  for (int k = 0; k < s.B.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(s.B, k); it; ++it)
      if (col[it.col()] >= 0) J(it.row(), col[it.col()]) += it.value();
  // Pair rows: [C_j, D_j] (on), [C_off_j, e_j] (a switch open).
  for (int k = 0; k < s.C.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(s.C, k); it; ++it) {
      const int j = static_cast<int>(it.row());
      if (col[j] >= 0 && mode[j]) J(col[j], it.col()) += it.value();
    }
  for (int k = 0; k < s.C_off.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(s.C_off, k); it; ++it) {
      const int j = static_cast<int>(it.row());
      if (col[j] >= 0 && !mode[j]) J(col[j], it.col()) += it.value();
    }
  for (int k = 0; k < s.D.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(s.D, k); it; ++it) {
      const int j = static_cast<int>(it.row()), l = static_cast<int>(it.col());
      if (col[j] >= 0 && mode[j] && col[l] >= 0) J(col[j], col[l]) += it.value();
    }
  for (int j = 0; j < m; ++j)
    if (col[j] >= 0 && !mode[j]) J(col[j], col[j]) += 1.0;

  const double j_norm = J.cwiseAbs().maxCoeff(), e_norm = Eb.cwiseAbs().maxCoeff();
  if (!(e_norm > 0) || !(j_norm > 0)) return out;  // no dynamics (or nothing at all)
  Eigen::GeneralizedEigenSolver<Eigen::MatrixXd> qz(J, Eb, false);
  if (qz.info() != Eigen::Success) {
    out.checked = false;
    return out;
  }
  const auto& alphas = qz.alphas();
  const auto& betas = qz.betas();
  std::complex<double> best;
  bool found = false;
  for (int k = 0; k < order; ++k) {
    const std::complex<double> a = alphas[k];
    const double b = betas[k];
    if (!(std::abs(b) / e_norm > kInfiniteRatio * std::abs(a) / j_norm)) continue;
    const std::complex<double> mu = a / b;
    if (!(mu.real() > min_rate) || !(mu.real() > kRoundingShare * std::abs(mu))) continue;
    if (!found || mu.real() > best.real()) best = mu, found = true;
  }
  if (!found) return out;

  // The eigenvector by inverse iteration on the shifted pencil.
  using Complex = std::complex<double>;
  const Complex shift = best * (1.0 + 1e-10);
  const Eigen::MatrixXcd shifted = J.cast<Complex>() - shift * Eb.cast<Complex>();
  const Eigen::PartialPivLU<Eigen::MatrixXcd> lu(shifted);
  Eigen::VectorXcd v = Eigen::VectorXcd::Ones(order);
  for (int it = 0; it < 2; ++it) {
    v = lu.solve((Eb.cast<Complex>() * v).eval());
    const double scale = v.cwiseAbs().maxCoeff();
    if (!(scale > 0) || !std::isfinite(scale)) return out;
    v /= scale;
  }
  const double peak = v.head(n).cwiseAbs().maxCoeff();
  if (!(peak > 0)) return out;
  GrowingMode g;
  g.mu = best;
  g.x = v.head(n) / peak;
  g.lambda.setZero(m);
  for (int j = 0; j < m; ++j)
    if (col[j] >= 0) g.lambda[j] = v[col[j]] / peak;
  out.growing = std::move(g);
  return out;
}

}  // namespace nsspice::solvers
