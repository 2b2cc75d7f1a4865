// A nonsingular start for the mode iteration (mode_mlcp.hpp): when the guessed mode's system
// K(σ) is singular (a bridge whose diodes all block, with a floating load; a converter's diodes
// conducting across switches that just closed), a nearby mode whose K is nonsingular.
//
// Candidates in order: the last accepted mode, the single flips of the guess, the free pairs all
// off, all on; then, for several independent floating parts, pairs flipped one at a time where
// the rank of K grows (a sparse rank-revealing QR, up to kRankSearchLimit unknowns), unless the
// rows of all modes together are rank deficient (then no mode is regular: one QR decides). Each
// candidate costs a factorization; above kDenseTransformMax free pairs (`quick`) only the last mode
// and all off / all on are tried — block pivoting (mode_mlcp_block.cpp) needs only some nonsingular
// start, not the vertex Lemke would pivot from. Forced pairs keep the guess's states.
// Reference: AB08 §12.4 (a nonsingular basis to start pivoting from).
#include <Eigen/OrderingMethods>
#include <Eigen/SparseQR>

#include "solvers/lcp/mode_mlcp.hpp"

namespace nsspice::solvers {
namespace {

// Above this size the search for a nonsingular mode does not flip pairs by rank.
constexpr int kRankSearchLimit = 600;

// Numerical rank by a sparse rank-revealing QR (COLAMD order; Eigen's default threshold,
// 20·(rows + cols)·ε·max column norm): a few milliseconds where a dense pivoted LU of the same
// K took a tenth of a second, and no dense object.
int sparse_rank(SparseMatrix a) {
  a.makeCompressed();
  Eigen::SparseQR<SparseMatrix, Eigen::COLAMDOrdering<int>> qr;
  qr.compute(a);
  return static_cast<int>(qr.rank());
}

}  // namespace

bool ModeMlcp::solve_start(const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                           std::vector<char>& mode, MlcpOutcome& outcome) {
  if (solve_low_rank(r, d, mode)) return true;
  const KluFactor* f = factor_for(mode);
  if (f == nullptr) {
    // The guess is singular (e.g. the first step of a bridge whose diodes all block, or the
    // diodes of a converter conducting across switches that just closed): a nearby nonsingular
    // mode is searched (above kDenseTransformMax free pairs only among a few candidates: each
    // is a factorization).
    if (find_base(mode, static_cast<int>(live().size()) > kDenseTransformMax)) f = factor_for(mode);
  }
  if (f == nullptr) {
    outcome.status = LcpStatus::kNumericalFailure;
    outcome.message =
        "the circuit equations are singular in every mode tried (a node or "
        "sub-circuit without a path for its current, or a loop of voltage-defined "
        "branches)";
    return false;
  }
  solve_mode(*f, r, d, mode);
  return true;
}

bool ModeMlcp::some_mode_can_be_regular(const std::vector<char>& mode) {
  const std::vector<int>& pairs = live();
  std::vector<char> on = mode;
  for (int j : pairs) on[j] = 1;
  const SparseMatrix k_on = s_.full_matrix(on, w_);
  std::vector<char> off = mode;
  for (int j : pairs) off[j] = 0;
  const SparseMatrix k_off = s_.full_matrix(off, w_);
  std::vector<Eigen::Triplet<double>> t;
  t.reserve(static_cast<size_t>(k_off.nonZeros() + k_on.nonZeros()));
  std::vector<int> extra(static_cast<size_t>(n_ + m_), -1);  // K row -> stacked row
  for (size_t i = 0; i < pairs.size(); ++i)
    extra[static_cast<size_t>(n_ + pairs[i])] = n_ + m_ + static_cast<int>(i);
  for (int c = 0; c < k_off.outerSize(); ++c) {
    for (SparseMatrix::InnerIterator it(k_off, c); it; ++it)
      t.emplace_back(it.row(), c, it.value());
    for (SparseMatrix::InnerIterator it(k_on, c); it; ++it)
      if (extra[static_cast<size_t>(it.row())] >= 0)
        t.emplace_back(extra[static_cast<size_t>(it.row())], c, it.value());
  }
  SparseMatrix rows(n_ + m_ + static_cast<int>(pairs.size()), n_ + m_);
  rows.setFromTriplets(t.begin(), t.end());
  return sparse_rank(rows) == n_ + m_;
}

bool ModeMlcp::find_base(std::vector<char>& mode, bool quick) {
  // Candidates in order: the last good base, single flips of the guess (not when quick), all
  // off, all on.
  std::vector<std::vector<char>> candidates = {base_mode_};
  for (int j : live()) {
    if (quick) break;
    candidates.push_back(mode);
    candidates.back()[j] = !mode[j];
  }
  for (char all : {0, 1}) {
    candidates.push_back(mode);
    for (int j : live()) candidates.back()[j] = all;
  }
  for (auto& c : candidates)  // switch states are given, never searched
    for (int j = 0; j < m_; ++j)
      if (forced_[j]) c[j] = mode[j];
  for (const auto& c : candidates) {
    if (factor_for(c) != nullptr) {
      mode = c;
      base_mode_ = c;  // the next singular guess's first candidate (and other step sizes')
      return true;
    }
  }
  // Several independent floating parts: flip pairs one at a time where the rank grows.
  if (quick || n_ + m_ > kRankSearchLimit) return false;
  std::vector<char> trial = mode;
  auto rank_of = [&](const std::vector<char>& md) { return sparse_rank(s_.full_matrix(md, w_)); };
  // The rows of every mode together — the network's, and both rows of each free pair — must
  // have full column rank for some mode to be nonsingular; when they do not (a node with no DC
  // path, whatever the pairs do), the flips below cannot succeed: one rank instead of many.
  if (!some_mode_can_be_regular(mode)) return false;
  auto rank = rank_of(trial);
  for (bool grew = true; grew && rank < n_ + m_;) {
    grew = false;
    for (int j : live()) {
      if (rank >= n_ + m_) break;
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
  base_mode_ = trial;
  return true;
}

}  // namespace nsspice::solvers
