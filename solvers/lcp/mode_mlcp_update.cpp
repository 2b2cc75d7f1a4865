// Low-rank mode solves (mode_mlcp.hpp, docs/solvers.md §8 "Low-rank updates"): a mode σ' that
// differs from a mode σ0 with a cached factor in a few pairs F = σ0 Δ σ' is solved with K(σ0)'s
// factor and a rank-|F| correction (Sherman–Morrison–Woodbury) instead of a factorization of
// K(σ'). Only the rows n+j, j ∈ F, differ:
//
//   K(σ') = K(σ0) + E_F ΔR,   ΔR_j = R_j(σ') − R_j(σ0),
//   R_j = (C_j, D_j) for a conducting pair, (C_off_j, e_jᵀ) for one that is off (C_off_j = 0 for
//   a free pair), E_F = the unit columns e_{n+j}, j ∈ F;
//
//   Z = K(σ0)⁻¹ E_F   (|F| solves; each column depends on σ0 and j only, and is cached),
//   T = I + ΔR Z      (|F| × |F|, det K(σ') = det K(σ0) det T),
//   u = v − Z T⁻¹ (ΔR v),   v = K(σ0)⁻¹ ρ(σ').
//
// T is used only when its reciprocal condition estimate is ≥ kLowRankRcond (otherwise K(σ') is
// factored, which also decides whether it is singular).
//
// Cost model (deterministic, in the flop equivalents of factor_cache.hpp): a solve with the base
// factor costs c_s = κ_s |LU| + (n + m), an answer to a miss by the analysis's model
// c_m = F + (κ_r + κ_c)|LU| + κ_a nnz(K) (the cheapest way a miss is answered); a low-rank mode
// costs c_s per new column of Z plus 2|F|(n + m) + |F|² per use. The spending on one base (new
// columns and every use) is kept below kLowRankGain·c_m: past that the mode is factored (rent
// until the price of buying is spent: at most twice the better of the two choices whatever the
// number of later uses). Matrices under kModelMinNonzeros entries are always factored (cheap).
// Not used for circuits with externally switched pairs (ideal switches; ModeMlcp's constructor):
// an ideal diode across a closed switch sits at λ = w = 0 and the current divides between them
// undetermined, so which of the equivalent modes the iteration settles on follows the rounding
// of the solve. On the MMC of bench/mmc.py at M = 50 the updates' rounding (each solution within
// 3e-15 backward error of K(σ') u = ρ) made the switch currents differ by 1e-6 from the
// factored solves' at 0.995 ms, and at 1.45 ms a step whose pivoting found no solution among all
// 600 free pairs stopped the run; with factored solves it runs to the end (1256 + 107
// factorizations over 703 steps, as before the updates; tests/data/mmc_m50_bench.cir).
// Diode-only circuits keep them. Since those diodes are held off while their switch is closed
// (hold_pairs), the same run with the updates forced on completes, but gains nothing (0.96 s
// against 0.92 s): they stay off there.
// Reference: W. W. Hager, "Updating the inverse of a matrix", SIAM Review 31(2), 221–239, 1989.
#include <algorithm>

#include "solvers/lcp/mode_mlcp.hpp"

namespace nsspice::solvers {
namespace {

// Solve cost per entry of L and U, in the flop equivalents of FactorModel (docs/solvers.md §8).
constexpr double kSolvePerEntry = 0.5;
constexpr double kLowRankGain = 0.8;
constexpr double kLowRankRcond = 1e-10;

std::string key_of(const std::vector<char>& mode) { return {mode.begin(), mode.end()}; }

}  // namespace

double ModeMlcp::low_rank_solve_cost(const KluFactor& base) const {
  return kSolvePerEntry * base.lu_entries() + static_cast<double>(n_ + m_);
}

double ModeMlcp::low_rank_miss_cost(const KluFactor& base) const {
  return base.flops() +
         (FactorModel::kRefactorPerEntry + FactorModel::kCopyPerEntry) * base.lu_entries() +
         FactorModel::kPerNonzero * static_cast<double>(k_.nonZeros());
}

void ModeMlcp::low_rank_rebase(const std::vector<char>& base_mode, const KluFactor* base) {
  lr_ = LowRank{};
  lr_.base_mode = base_mode;
  lr_.base_key = key_of(base_mode);
  lr_.base = base;
  lr_.slot.assign(static_cast<size_t>(m_), -1);
}

bool ModeMlcp::plan_low_rank(const std::vector<char>& mode) {
  // Bases: the one in use (its columns are cached) and the factor used last.
  const KluFactor* last = last_factor_ != nullptr ? cache_.find(key_of(last_mode_)) : nullptr;
  if (last != last_factor_) last = nullptr;
  const KluFactor* base = lr_.base != nullptr ? cache_.find(lr_.base_key) : nullptr;
  if (base != lr_.base) base = nullptr;
  auto distance = [&](const std::vector<char>& from) {
    int k = 0;
    for (int j = 0; j < m_; ++j) k += from[j] != mode[j] ? 1 : 0;
    return k;
  };
  const int k_base = base != nullptr ? distance(lr_.base_mode) : m_ + 1;
  const int k_last = last != nullptr ? distance(last_mode_) : m_ + 1;
  if ((base == nullptr && last == nullptr) || std::min(k_base, k_last) > kLowRankMaxPairs)
    return false;
  if (k_last < k_base) {
    low_rank_rebase(last_mode_, last);
    base = last;
  }
  std::vector<int> flip;
  int new_columns = 0;
  for (int j = 0; j < m_; ++j)
    if (lr_.base_mode[j] != mode[j]) {
      flip.push_back(j);
      new_columns += lr_.slot[j] < 0 ? 1 : 0;
    }
  const auto k = static_cast<double>(flip.size());
  const double c_s = low_rank_solve_cost(*base);
  const double use = 2.0 * k * (n_ + m_) + k * k;
  const bool full = static_cast<int>(lr_.columns.size()) + new_columns > kLowRankMaxPairs;
  if (lr_.spent + (full ? k : new_columns) * c_s + use > kLowRankGain * low_rank_miss_cost(*base))
    return false;
  if (full) low_rank_rebase(lr_.base_mode, base);
  for (int j : flip) {
    if (lr_.slot[j] >= 0) continue;
    Eigen::VectorXd z = Eigen::VectorXd::Zero(n_ + m_);
    z[n_ + j] = 1.0;
    s_.solve(*base, lr_.base_mode, z);
    lr_.slot[j] = static_cast<int>(lr_.columns.size());
    lr_.columns.push_back(std::move(z));
    lr_.spent += c_s;
    ++stats_.low_rank_columns;
  }
  // T = I + ΔR Z.
  const int r = static_cast<int>(flip.size());
  count_dense(r);
  Eigen::MatrixXd t = Eigen::MatrixXd::Identity(r, r);
  for (int p = 0; p < r; ++p)
    for (int q = 0; q < r; ++q) t(p, q) += low_rank_row(flip[p], mode, column(flip[q]));
  lr_.t_lu.compute(t);
  lr_.mode = mode;
  lr_.flip = std::move(flip);
  lr_.use_cost = use;
  lr_.ok = rcond_(lr_.t_lu, LuRcond::l1_norm(t)) >= kLowRankRcond;
  if (lr_.ok) ++stats_.low_rank_modes;
  return lr_.ok;
}

const Eigen::VectorXd& ModeMlcp::column(int j) const {
  return lr_.columns[static_cast<size_t>(lr_.slot[j])];
}

double ModeMlcp::low_rank_row(int j, const std::vector<char>& mode,
                              const Eigen::VectorXd& u) const {
  // ΔR_j u = R_j(σ') u − R_j(σ0) u, with R_j(on) u = C_j x + D_j λ, R_j(off) u = C_off_j x + λ_j.
  auto on = [&] {
    double v = 0;
    for (RowMatrix::InnerIterator it(c_rows_, j); it; ++it) v += it.value() * u[it.index()];
    for (RowMatrix::InnerIterator it(d_rows_, j); it; ++it) v += it.value() * u[n_ + it.index()];
    return v;
  };
  auto off = [&] {
    double v = u[n_ + j];
    for (RowMatrix::InnerIterator it(c_off_rows_, j); it; ++it) v += it.value() * u[it.index()];
    return v;
  };
  return mode[j] ? on() - off() : off() - on();
}

bool ModeMlcp::solve_low_rank(const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                              const std::vector<char>& mode) {
  if (!low_rank_ || k_.nonZeros() < kModelMinNonzeros) return false;
  if (last_factor_ != nullptr && mode == last_mode_) return false;  // factor_for's fast path
  if (mode != lr_.mode || !lr_.ok) {
    if (cache_.find(key_of(mode)) != nullptr) return false;  // cached: a hit
    if (!plan_low_rank(mode)) return false;
  } else if (cache_.find(lr_.base_key) != lr_.base ||
             lr_.spent + lr_.use_cost > kLowRankGain * low_rank_miss_cost(*lr_.base)) {
    lr_.mode.clear();  // the base was dropped, or this mode has been used enough: factor it
    return false;
  }
  lr_.spent += lr_.use_cost;
  u_.resize(n_ + m_);
  u_.head(n_) = r;
  for (int j = 0; j < m_; ++j) u_[n_ + j] = mode[j] ? -d[j] : 0.0;
  s_.solve(*lr_.base, lr_.base_mode, u_);
  const int k = static_cast<int>(lr_.flip.size());
  Eigen::VectorXd g(k);
  for (int p = 0; p < k; ++p) g[p] = low_rank_row(lr_.flip[p], mode, u_);
  const Eigen::VectorXd y = lr_.t_lu.solve(g);
  for (int p = 0; p < k; ++p) u_ -= y[p] * column(lr_.flip[p]);
  ++stats_.mode_solves;
  ++stats_.low_rank_solves;
  return true;
}

}  // namespace nsspice::solvers
