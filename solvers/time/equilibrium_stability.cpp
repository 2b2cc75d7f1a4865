// Growing modes of an MLCS equilibrium in a fixed mode (equilibrium_stability.hpp states the
// pencil). The pencil (J, Ē) over z = (x, λ_on) is reduced onto the dynamic unknowns first:
// with z split into d (the unknowns E touches: capacitor nodes, inductor currents, charges) and
// a (the rest, pair multipliers included), Ē ż = J z reads
//
//   E_dd ż_d = J_dd z_d + J_da z_a,   0 = J_ad z_d + J_aa z_a
//
// so for J_aa nonsingular (an index-1 DAE: sparse LU) z_a = −J_aa⁻¹ J_ad z_d and the finite
// eigenvalues are those of the pencil (S, E_dd), S = J_dd − J_da J_aa⁻¹ J_ad, of order |d|
// (QZ up to kMaxEquilibriumOrder); those of E_dd's singular part are infinite. Then two steps
// of inverse iteration on S − μ̃ E_dd (μ̃ = μ·(1 + 1e-10), off the eigenvalue so that the
// shifted matrix factors) give the eigenvector of the eigenvalue of largest real part, and
// z_a follows.
#include "solvers/time/equilibrium_stability.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <Eigen/SparseLU>
#include <cmath>

namespace nsspice::solvers {
namespace {

// A finite eigenvalue's real part must exceed this share of |μ| (rounding of a lossless LC
// pair's ±jω is far below it; a real oscillator's growth, 1/(2Q) of ω, far above).
constexpr double kRoundingShare = 1e-6;
// α/β is infinite (an algebraic constraint) when |β|/‖E_dd‖ ≤ this times |α|/‖S‖.
constexpr double kInfiniteRatio = 1e-12;

using Triplet = Eigen::Triplet<double>;

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
  // The dynamic unknowns: rows and columns of E with an entry.
  std::vector<char> dynamic(static_cast<size_t>(order), 0);
  for (int k = 0; k < s.E.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(s.E, k); it; ++it)
      if (it.value() != 0.0) dynamic[it.row()] = dynamic[it.col()] = 1;
  std::vector<int> at(static_cast<size_t>(order));  // index within d or within a
  int nd = 0, na = 0;
  for (int i = 0; i < order; ++i) at[i] = dynamic[i] ? nd++ : na++;
  out.order = nd;
  if (nd == 0 || nd > kMaxEquilibriumOrder) return out;

  // J's blocks, and E_dd.
  std::vector<Triplet> dd, da, ad, aa;
  const auto add = [&](int r, int c, double v) {
    const bool rd = dynamic[r], cd = dynamic[c];
    (rd ? (cd ? dd : da) : (cd ? ad : aa)).emplace_back(at[r], at[c], v);
  };
  for (int k = 0; k < s.G.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(s.G, k); it; ++it)
      add(static_cast<int>(it.row()), static_cast<int>(it.col()), -it.value());
  for (int k = 0; k < s.B.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(s.B, k); it; ++it)
      if (col[it.col()] >= 0) add(static_cast<int>(it.row()), col[it.col()], it.value());
  // Pair rows: [C_j, D_j] (on), [C_off_j, e_j] (a switch open).
  for (int k = 0; k < s.C.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(s.C, k); it; ++it) {
      const int j = static_cast<int>(it.row());
      if (col[j] >= 0 && mode[j]) add(col[j], static_cast<int>(it.col()), it.value());
    }
  for (int k = 0; k < s.C_off.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(s.C_off, k); it; ++it) {
      const int j = static_cast<int>(it.row());
      if (col[j] >= 0 && !mode[j]) add(col[j], static_cast<int>(it.col()), it.value());
    }
  for (int k = 0; k < s.D.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(s.D, k); it; ++it) {
      const int j = static_cast<int>(it.row()), l = static_cast<int>(it.col());
      if (col[j] >= 0 && mode[j] && col[l] >= 0) add(col[j], col[l], it.value());
    }
  for (int j = 0; j < m; ++j)
    if (col[j] >= 0 && !mode[j]) add(col[j], col[j], 1.0);
  Eigen::MatrixXd e_dd = Eigen::MatrixXd::Zero(nd, nd);
  for (int k = 0; k < s.E.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(s.E, k); it; ++it)
      e_dd(at[it.row()], at[it.col()]) += it.value();
  const auto sparse = [](int rows, int cols, const std::vector<Triplet>& t) {
    SparseMatrix a(rows, cols);
    a.setFromTriplets(t.begin(), t.end());
    return a;
  };
  Eigen::MatrixXd S = sparse(nd, nd, dd);
  Eigen::MatrixXd x_a = Eigen::MatrixXd::Zero(na, nd);  // z_a = −X z_d: X = J_aa⁻¹ J_ad
  const SparseMatrix j_da = sparse(nd, na, da);
  if (na > 0) {
    SparseMatrix j_aa = sparse(na, na, aa);
    j_aa.makeCompressed();
    Eigen::SparseLU<SparseMatrix> lu;
    lu.compute(j_aa);
    if (lu.info() != Eigen::Success) return out;  // index > 1 in this mode: not checked
    const Eigen::MatrixXd j_ad = sparse(na, nd, ad);
    x_a = lu.solve(j_ad);
    if (lu.info() != Eigen::Success || !x_a.allFinite()) return out;
    S -= j_da * x_a;
  }
  out.checked = true;

  const double s_norm = S.cwiseAbs().maxCoeff(), e_norm = e_dd.cwiseAbs().maxCoeff();
  if (!(e_norm > 0) || !(s_norm > 0)) return out;
  Eigen::GeneralizedEigenSolver<Eigen::MatrixXd> qz(S, e_dd, false);
  if (qz.info() != Eigen::Success) {
    out.checked = false;
    return out;
  }
  std::complex<double> best;
  bool found = false;
  for (int k = 0; k < nd; ++k) {
    const std::complex<double> a = qz.alphas()[k];
    const double b = qz.betas()[k];
    if (!(std::abs(b) / e_norm > kInfiniteRatio * std::abs(a) / s_norm)) continue;
    const std::complex<double> mu = a / b;
    if (!(mu.real() > min_rate) || !(mu.real() > kRoundingShare * std::abs(mu))) continue;
    if (!found || mu.real() > best.real()) best = mu, found = true;
  }
  if (!found) return out;

  using Complex = std::complex<double>;
  const Complex shift = best * (1.0 + 1e-10);
  const Eigen::MatrixXcd e_c = e_dd.cast<Complex>();
  const Eigen::PartialPivLU<Eigen::MatrixXcd> lu(S.cast<Complex>() - shift * e_c);
  Eigen::VectorXcd v = Eigen::VectorXcd::Ones(nd);
  for (int it = 0; it < 2; ++it) {
    v = lu.solve((e_c * v).eval());
    const double scale = v.cwiseAbs().maxCoeff();
    if (!(scale > 0) || !std::isfinite(scale)) return out;
    v /= scale;
  }
  const Eigen::VectorXcd v_a = -(x_a.cast<Complex>() * v);
  Eigen::VectorXcd z(order);
  for (int i = 0; i < order; ++i) z[i] = dynamic[i] ? v[at[i]] : v_a[at[i]];
  const double peak = z.head(n).cwiseAbs().maxCoeff();
  if (!(peak > 0)) return out;
  GrowingMode g;
  g.mu = best;
  g.x = z.head(n) / peak;
  g.lambda.setZero(m);
  for (int j = 0; j < m; ++j)
    if (col[j] >= 0) g.lambda[j] = z[col[j]] / peak;
  out.growing = std::move(g);
  return out;
}

}  // namespace nsspice::solvers
