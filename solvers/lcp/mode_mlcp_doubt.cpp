// Pivoting restricted to the pairs in doubt (mode_mlcp.hpp, docs/solvers.md §8): the fallback of
// block principal pivoting, dense only on the set U of pairs whose state is still undecided.
//
// At a nonsingular base mode σ with base solution u0 (K(σ) u0 = ρ(σ)), hold every pair outside
// U in its σ state and let the pairs of U move: u = u0 + Σ_{k∈U} z_k K(σ)⁻¹ e_{n+k}. The basic
// variable of pair j is y_j = λ_j (j ∈ σ) or w_j = C_j x + D_j λ + d_j (j ∉ σ), so
//
//   y_U = M_UU z_U + q_U,   (M_UU)_{·k} = y_U(K(σ)⁻¹ e_{n+k}) without d,   q_U = y_U(u0),
//
// which is the principal pivot transform of all pairs (mode_mlcp_pivot.cpp) with the rows and
// columns outside U dropped: the Schur complement of the decided pairs. |U| ≤ kDoubtMax sparse
// solves build it, in blocks of kColumnBlock right-hand sides, so the memory is
// (n + m)·kColumnBlock + |U|² doubles. After equilibration (equilibrate_lcp) the policy's LCP
// solver solves it; its final basis names σ' = σ Δ {k ∈ U : z_k basic}, nonsingular with the
// basis (det K(σ') = ± det K(σ) det (M_UU)_ZZ). If K(σ') cannot be factored, u = u0 + K(σ)⁻¹
// Σ z_k e_{n+k} (one more solve). Pairs outside U that the new solution violates join U and the
// transform is rebuilt at σ' (at most kDoubtRounds times). If the restricted LCP has no
// solution (the decided pairs were decided wrongly: possible when M is not a P-matrix), U is
// widened by the decided pairs closest to switching (smallest λ_j or w_j relative to their
// norms), at least doubling it, up to all free pairs or kDoubtMax.
// References: CPS §2.3 (principal pivot transforms, Schur complements), AB08 §12.4.
#include <fmt/format.h>

#include <algorithm>

#include "solvers/lcp/mode_mlcp.hpp"

namespace nsspice::solvers {
namespace {

constexpr int kColumnBlock = 64;
constexpr int kDoubtRounds = 12;

}  // namespace

void ModeMlcp::count_dense(long order) {
  if (order <= 0) return;  // (an empty Schur complement: nothing is allocated)
  ++stats_.dense_allocations;
  stats_.max_dense_order = std::max(stats_.max_dense_order, order);
}

void ModeMlcp::doubt_transform(const KluFactor& base, const std::vector<char>& base_mode,
                               const std::vector<int>& doubt, const Eigen::VectorXd& r,
                               const Eigen::VectorXd& d, Eigen::MatrixXd& M, Eigen::VectorXd& q) {
  const int u = static_cast<int>(doubt.size());
  solve_mode(base, r, d, base_mode);
  u0_ = u_;
  auto basic = [&](const Eigen::VectorXd& v, int j, double offset) {
    if (base_mode[j]) return v[n_ + j];
    double s = offset;
    for (RowMatrix::InnerIterator it(c_rows_, j); it; ++it) s += it.value() * v[it.index()];
    for (RowMatrix::InnerIterator it(d_rows_, j); it; ++it) s += it.value() * v[n_ + it.index()];
    return s;
  };
  count_dense(u);
  M.resize(u, u);
  q.resize(u);
  for (int i = 0; i < u; ++i) q[i] = basic(u0_, doubt[i], d[doubt[i]]);
  Eigen::MatrixXd cols;
  for (int k0 = 0; k0 < u; k0 += kColumnBlock) {
    const int nb = std::min(kColumnBlock, u - k0);
    cols.setZero(n_ + m_, nb);
    for (int k = 0; k < nb; ++k) cols(n_ + doubt[k0 + k], k) = 1.0;
    s_.solve_many(base, base_mode, cols);
    stats_.mode_solves += nb;
    for (int k = 0; k < nb; ++k) {
      const Eigen::VectorXd col = cols.col(k);
      for (int i = 0; i < u; ++i) M(i, k0 + k) = basic(col, doubt[i], 0.0);
    }
  }
}

bool ModeMlcp::widen_doubt(const std::vector<char>& base_mode, const Eigen::VectorXd& d,
                           std::vector<int>& doubt) const {
  const size_t f = live().size();
  if (doubt.size() >= f || static_cast<int>(doubt.size()) >= kDoubtMax) return false;
  // Relative distance of each decided pair from switching at the base solution u0_: λ_j/‖λ‖∞
  // for a conducting pair, w_j/‖w‖∞ for a blocking one.
  const Eigen::VectorXd lambda = u0_.tail(m_);
  Eigen::VectorXd w = c_ * u0_.head(n_) + d_ * lambda + d;
  const double l_norm = lambda.lpNorm<Eigen::Infinity>() + 1e-300;
  const double w_norm = w.lpNorm<Eigen::Infinity>() + 1e-300;
  std::vector<std::pair<double, int>> candidates;
  for (int j : live())
    if (!std::binary_search(doubt.begin(), doubt.end(), j))
      candidates.emplace_back(base_mode[j] ? lambda[j] / l_norm : w[j] / w_norm, j);
  const size_t add = std::min({candidates.size(), std::max<size_t>(doubt.size(), 16),
                               static_cast<size_t>(kDoubtMax) - doubt.size()});
  std::partial_sort(candidates.begin(), candidates.begin() + static_cast<long>(add),
                    candidates.end());
  for (size_t k = 0; k < add; ++k) doubt.push_back(candidates[k].second);
  std::sort(doubt.begin(), doubt.end());
  return true;
}

bool ModeMlcp::pivot_on_doubt(std::vector<char> base_mode, std::vector<int> doubt,
                              const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                              std::vector<char>& mode, Eigen::VectorXd& x, Eigen::VectorXd& lambda,
                              Eigen::VectorXd& w, Check& c, MlcpOutcome& outcome) {
  ++stats_.doubt_calls;
  for (int round = 0; round < kDoubtRounds; ++round) {
    stats_.max_doubt = std::max(stats_.max_doubt, static_cast<long>(doubt.size()));
    if (static_cast<int>(doubt.size()) > kDoubtMax) {
      outcome.status = LcpStatus::kNoConvergence;
      outcome.pairs = doubt;
      outcome.message = fmt::format(
          "block pivoting left {} pairs undecided (more than the {} a dense pivoting solve may "
          "take)",
          doubt.size(), kDoubtMax);
      return false;
    }
    const KluFactor* base = factor_for(base_mode);
    if (base == nullptr) {
      outcome.status = LcpStatus::kNumericalFailure;
      outcome.message = "the circuit equations of the step's mode are numerically singular";
      return false;
    }
    Eigen::MatrixXd M;
    Eigen::VectorXd q, row_scale, col_scale;
    doubt_transform(*base, base_mode, doubt, r, d, M, q);
    equilibrate_lcp(M, q, row_scale, col_scale);
    const PolicyResult lcp = solve_lcp(M, q, step_policy(static_cast<int>(doubt.size())));
    ++stats_.methods[static_cast<size_t>(lcp.method)];
    stats_.pivots += lcp.pivots + lcp.iterations;
    if (!has_answer(lcp.status) && widen_doubt(base_mode, d, doubt)) continue;
    if (!has_answer(lcp.status)) {
      outcome.status = lcp.status;
      outcome.pairs = doubt;
      outcome.message = fmt::format(
          "the LCP solver ({}) failed on the {} undecided pairs of the step{}",
          to_string(lcp.method), doubt.size(), lcp.message.empty() ? "" : ": " + lcp.message);
      return false;
    }
    std::vector<char> next = base_mode;
    Eigen::VectorXd shift = Eigen::VectorXd::Zero(n_ + m_);
    for (size_t k = 0; k < doubt.size(); ++k) {
      if (lcp.z_basic[k]) next[doubt[k]] = !next[doubt[k]];
      shift[n_ + doubt[k]] = col_scale[static_cast<Eigen::Index>(k)] * lcp.z[k];
    }
    const bool regular = solve_any(r, d, next);
    if (!regular) {  // the basis says K(σ') is nonsingular; use the transform
      s_.solve(*base, base_mode, shift);
      ++stats_.mode_solves;
      u_ = u0_ + shift;
    }
    mode = next;
    split(mode, d, x, lambda, w);
    c = check(lambda, w, x, d, 1.0);
    if (c.feasible || c.violated.empty()) return true;
    bool grew = false;
    for (int j : c.violated)
      if (!std::binary_search(doubt.begin(), doubt.end(), j)) {
        doubt.insert(std::upper_bound(doubt.begin(), doubt.end(), j), j);
        grew = true;
      }
    if (regular) base_mode = next;
    if (!grew && !regular) return true;  // nothing new to decide: the caller's checks report
  }
  return true;  // the last solution goes to the caller's polishing and loose check
}

}  // namespace nsspice::solvers
