#include "solvers/lcp/mode_mlcp.hpp"

#include <fmt/format.h>

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <limits>

#include "solvers/lcp/lemke.hpp"

namespace nsspice::solvers {
namespace {

using Triplets = std::vector<Eigen::Triplet<double, int>>;

// Tolerance factor κ in tol = κ·ε·scale for accepting λ_j ≥ −tol and w_j ≥ −tol.
constexpr double kStrict = 1e4;
// A solution that passes only with κ·kLooseFactor is returned as kInaccurate.
constexpr double kLooseFactor = 1e4;
constexpr double kEps = std::numeric_limits<double>::epsilon();
// Above this size the search for a nonsingular mode does not use dense rank computations.
constexpr int kDenseRankLimit = 600;

// Entries of K(σ) for σ = all pairs on (on = true) or all off, on one common pattern.
Triplets mode_triplets(const SparseMatrix& w, const SparseMatrix& b, const SparseMatrix& c,
                       const SparseMatrix& d, bool on) {
  const int n = static_cast<int>(w.rows());
  const int m = static_cast<int>(d.rows());
  Triplets t;
  t.reserve(w.nonZeros() + b.nonZeros() + c.nonZeros() + d.nonZeros() + m);
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
  for (int j = 0; j < m; ++j) t.emplace_back(n + j, n + j, on ? 0.0 : 1.0);
  return t;
}

SparseMatrix from_triplets(int size, const Triplets& t) {
  SparseMatrix k(size, size);
  k.setFromTriplets(t.begin(), t.end());
  k.makeCompressed();
  return k;
}

std::string mode_key(const std::vector<char>& mode) { return {mode.begin(), mode.end()}; }

}  // namespace

SparseMatrix mode_matrix_pattern(const SparseMatrix& w, const SparseMatrix& b,
                                 const SparseMatrix& c, const SparseMatrix& d) {
  return from_triplets(static_cast<int>(w.rows() + d.rows()), mode_triplets(w, b, c, d, true));
}

ModeMlcp::ModeMlcp(const SparseMatrix& w, const SparseMatrix& b, const SparseMatrix& c,
                   const SparseMatrix& d, const KluSymbolic& symbolic, int cache_capacity)
    : n_(static_cast<int>(w.rows())),
      m_(static_cast<int>(d.rows())),
      c_(c),
      d_(d),
      symbolic_(symbolic),
      cache_(std::max(cache_capacity, 2)) {
  k_ = from_triplets(n_ + m_, mode_triplets(w, b, c, d, true));
  const SparseMatrix k_off = from_triplets(n_ + m_, mode_triplets(w, b, c, d, false));
  on_values_.assign(k_.valuePtr(), k_.valuePtr() + k_.nonZeros());
  off_values_.assign(k_off.valuePtr(), k_off.valuePtr() + k_off.nonZeros());
  base_mode_.assign(m_, 0);
  // Norms for the tolerances of check().
  Eigen::VectorXd w_rows = Eigen::VectorXd::Zero(n_);
  for (int k = 0; k < w.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(w, k); it; ++it) w_rows[it.row()] += std::abs(it.value());
  w_norm_ = n_ > 0 ? w_rows.maxCoeff() : 0.0;
  c_row_norm_ = Eigen::VectorXd::Zero(m_);
  d_row_norm_ = Eigen::VectorXd::Zero(m_);
  for (int k = 0; k < c.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(c, k); it; ++it)
      c_row_norm_[it.row()] += std::abs(it.value());
  for (int k = 0; k < d.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(d, k); it; ++it)
      d_row_norm_[it.row()] += std::abs(it.value());
}

const KluFactor* ModeMlcp::factor_for(const std::vector<char>& mode) {
  const std::string key = mode_key(mode);
  if (cache_.find(key) != nullptr) return cache_.get(key, symbolic_, k_);  // counted as a hit
  set_values(mode);
  return cache_.get(key, symbolic_, k_);
}

void ModeMlcp::set_values(const std::vector<char>& mode) {
  const int* outer = k_.outerIndexPtr();
  const int* inner = k_.innerIndexPtr();
  double* values = k_.valuePtr();
  for (int col = 0; col < n_ + m_; ++col) {
    for (int p = outer[col]; p < outer[col + 1]; ++p) {
      const int row = inner[p];
      values[p] = (row >= n_ && !mode[row - n_]) ? off_values_[p] : on_values_[p];
    }
  }
}

void ModeMlcp::solve_mode(const KluFactor& f, const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                          const std::vector<char>& mode) {
  rho_.resize(n_ + m_);
  rho_.head(n_) = r;
  for (int j = 0; j < m_; ++j) rho_[n_ + j] = mode[j] ? -d[j] : 0.0;
  u_ = rho_;
  f.solve(u_);
  ++stats_.mode_solves;
}

void ModeMlcp::split(const std::vector<char>& mode, const Eigen::VectorXd& d, Eigen::VectorXd& x,
                     Eigen::VectorXd& lambda, Eigen::VectorXd& w) const {
  x = u_.head(n_);
  lambda = u_.tail(m_);
  for (int j = 0; j < m_; ++j)
    if (!mode[j]) lambda[j] = 0.0;  // exact by the mode's equation λ_j = 0
  w = c_ * x + d_ * lambda + d;
}

ModeMlcp::Check ModeMlcp::check(const Eigen::VectorXd& lambda, const Eigen::VectorXd& w,
                                const Eigen::VectorXd& x, const Eigen::VectorXd& d,
                                double slack) const {
  // Scales of the rounding errors of a sparse solve, which are relative to the whole solution,
  // not to one component: w_j = C_j x + D_j λ + d_j is measured against
  //   ‖C_j‖₁ ‖x‖∞ + ‖D_j‖₁ ‖λ‖∞ + |d_j|,
  // and λ (a multiplier of the equations W x − B λ = r, |B| ≤ 1) against
  //   ‖λ‖∞ + ‖W‖∞ ‖x‖∞.
  // A pair is accepted when λ̂_j = λ_j/scale_λ ≥ −κε and ŵ_j = w_j/scale_w ≥ −κε; the relative
  // complementarity residual max_j |min(λ̂_j, ŵ_j)| is reported and bounded the same way.
  const double x_norm = x.lpNorm<Eigen::Infinity>();
  const double lambda_norm = lambda.lpNorm<Eigen::Infinity>();
  const double tiny = std::numeric_limits<double>::min();
  const double lambda_scale = lambda_norm + w_norm_ * x_norm + tiny;
  Check out{true, 0.0, {}};
  for (int j = 0; j < m_; ++j) {
    const double w_scale =
        c_row_norm_[j] * x_norm + d_row_norm_[j] * lambda_norm + std::abs(d[j]) + tiny;
    const double lam = lambda[j] / lambda_scale;
    const double wj = w[j] / w_scale;
    out.residual = std::max(out.residual, std::abs(std::min(lam, wj)));
    if (lam < -kStrict * slack * kEps || wj < -kStrict * slack * kEps) {
      out.feasible = false;
      out.violated.push_back(j);
    }
  }
  if (out.residual > kStrict * slack * kEps) out.feasible = false;
  return out;
}

MlcpOutcome ModeMlcp::solve(const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                            std::vector<char>& mode, Eigen::VectorXd& x, Eigen::VectorXd& lambda,
                            Eigen::VectorXd& w) {
  ++stats_.solves;
  MlcpOutcome outcome;
  const std::vector<char> guess = mode;
  const KluFactor* f = factor_for(mode);
  if (f == nullptr) {
    // The guess is singular (e.g. the first step of a bridge whose diodes all block).
    if (!find_base(mode)) {
      outcome.status = LcpStatus::kNumericalFailure;
      outcome.message =
          "the circuit equations are singular in every mode tried (a node or "
          "sub-circuit without a path for its current, or a loop of voltage-defined "
          "branches)";
      return outcome;
    }
    f = factor_for(mode);
  }
  solve_mode(*f, r, d, mode);
  split(mode, d, x, lambda, w);
  Check c = check(lambda, w, x, d, 1.0);
  if (!c.feasible && !c.violated.empty()) {
    // One cheap block pivot: flip the violated pairs (often right when a few diodes switch).
    std::vector<char> trial = mode;
    for (int j : c.violated) trial[j] = !trial[j];
    if (const KluFactor* ft = factor_for(trial)) {
      solve_mode(*ft, r, d, trial);
      Eigen::VectorXd xt, lt, wt;
      split(trial, d, xt, lt, wt);
      const Check ct = check(lt, wt, xt, d, 1.0);
      if (ct.feasible) {
        mode = trial;
        x = xt;
        lambda = lt;
        w = wt;
        c = ct;
      }
    }
  }
  if (!c.feasible) {
    const KluFactor* base = factor_for(mode);  // cache hit: the factor found above
    if (!pivot_with_lemke(*base, mode, r, d, mode, outcome)) return outcome;
    split(mode, d, x, lambda, w);
    c = check(lambda, w, x, d, 1.0);
    if (!c.feasible) {
      const Check loose = check(lambda, w, x, d, kLooseFactor);
      if (!loose.feasible) {
        outcome.status = LcpStatus::kNumericalFailure;
        outcome.pairs = loose.violated;
        outcome.residual = loose.residual;
        outcome.message = "no mode satisfies the complementarity conditions to tolerance";
        return outcome;
      }
      outcome.status = LcpStatus::kInaccurate;
      ++stats_.inaccurate;
    }
  }
  outcome.residual = c.residual;
  outcome.mode_changed = mode != guess;
  if (outcome.mode_changed) ++stats_.mode_changes;
  base_mode_ = mode;
  return outcome;
}

bool ModeMlcp::find_base(std::vector<char>& mode) {
  // Candidates in order: the last good base, single flips of the guess, all off, all on.
  std::vector<std::vector<char>> candidates = {base_mode_};
  for (int j = 0; j < m_; ++j) {
    candidates.push_back(mode);
    candidates.back()[j] = !mode[j];
  }
  candidates.emplace_back(m_, 0);
  candidates.emplace_back(m_, 1);
  for (const auto& c : candidates) {
    if (factor_for(c) != nullptr) {
      mode = c;
      return true;
    }
  }
  // Several independent floating parts: flip pairs one at a time where the rank grows.
  if (n_ + m_ > kDenseRankLimit) return false;
  std::vector<char> trial = mode;
  auto rank_of = [&](const std::vector<char>& md) {
    set_values(md);
    return Eigen::FullPivLU<Eigen::MatrixXd>(Eigen::MatrixXd(k_)).rank();
  };
  auto rank = rank_of(trial);
  for (bool grew = true; grew && rank < n_ + m_;) {
    grew = false;
    for (int j = 0; j < m_ && rank < n_ + m_; ++j) {
      trial[j] = !trial[j];
      const auto r = rank_of(trial);
      if (r > rank) {
        rank = r;
        grew = true;
      } else {
        trial[j] = !trial[j];
      }
    }
  }
  if (rank < n_ + m_ || factor_for(trial) == nullptr) return false;
  mode = trial;
  return true;
}

bool ModeMlcp::pivot_with_lemke(const KluFactor& base, const std::vector<char>& base_mode,
                                const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                                std::vector<char>& mode, MlcpOutcome& outcome) {
  ++stats_.lemke_calls;
  // u = u0 + U z: columns of U = K(σ)^-1 e_{n+k} (the effect of the nonbasic variable z_k).
  solve_mode(base, r, d, base_mode);
  const Eigen::VectorXd u0 = u_;
  Eigen::MatrixXd u_cols = Eigen::MatrixXd::Zero(n_ + m_, m_);
  u_cols.bottomRows(m_).setIdentity();
  base.solve_many(u_cols);
  stats_.mode_solves += m_;
  const Eigen::MatrixXd y_lin = c_ * u_cols.topRows(n_) + d_ * u_cols.bottomRows(m_);
  const Eigen::VectorXd w0 = c_ * u0.head(n_) + d_ * u0.tail(m_) + d;
  Eigen::MatrixXd M(m_, m_);
  Eigen::VectorXd q(m_);
  for (int j = 0; j < m_; ++j) {
    if (base_mode[j]) {
      M.row(j) = u_cols.row(n_ + j);
    } else {
      M.row(j) = y_lin.row(j);
    }
    q[j] = base_mode[j] ? u0[n_ + j] : w0[j];
  }
  const LcpResult lcp = solve_lemke(M, q);
  stats_.pivots += lcp.pivots;
  if (lcp.status != LcpStatus::kSuccess && lcp.status != LcpStatus::kInaccurate) {
    outcome.status = lcp.status;
    for (int j = 0; j < m_; ++j)
      if (q[j] < 0) outcome.pairs.push_back(j);
    outcome.message = lcp.status == LcpStatus::kInfeasible
                          ? "the complementarity problem of the step has no solution"
                          : "the pivoting method failed on the step's complementarity problem";
    return false;
  }
  std::vector<char> next = base_mode;
  for (int j = 0; j < m_; ++j)
    if (lcp.z_basic[j]) next[j] = !next[j];
  if (const KluFactor* f = factor_for(next)) {
    solve_mode(*f, r, d, next);  // exact solve in the new mode
  } else {
    u_ = u0 + u_cols * lcp.z;  // the pivot basis says K(σ') is nonsingular; use the transform
  }
  mode = next;
  return true;
}

}  // namespace nsspice::solvers
