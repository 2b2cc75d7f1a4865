// The reduced path of the mode iteration (mode_mlcp.hpp, docs/formulation.md §3.2): a mode σ
// with few active pairs A = σ ∪ {forced pairs} is solved by block elimination through the
// factor of the step matrix W alone (free pairs off: λ_j = 0), instead of a factor of K(σ):
//
//   x = x0 + Y λ_A,   x0 = W⁻¹ r,   Y = W⁻¹ B_A   (one column per pair, cached),
//   S λ_A = g,   S_jk = R_j Y_k + E_jk,   g_j = e_j − R_j x0,
//
// with R_j = C_j, E_jk = D_jk, e_j = −d_j for a conducting pair and R_j = C_off_j,
// E_jk = δ_jk, e_j = 0 for a forced pair that is off; det K(σ) = det W det S. W is used only
// when KLU's rcond estimate of it is ≥ kReducedWRcond, S only when its reciprocal condition
// estimate is ≥ kReducedSRcond; otherwise the caller factors K(σ). The factors of S (and that
// decision) are kept for the last ModeMlcp::kSchurSlots modes met: a mode met again is solved
// with the factor made when it was first met, the same numbers without the O(|A|³) work again.
// Reference: AB08 §12.4 (Schur complement of an MLCP).
#include <Eigen/LU>
#include <algorithm>

#include "solvers/lcp/mode_mlcp.hpp"

namespace nsspice::solvers {
namespace {

// Reduced solves: W is used only if KLU's rcond estimate of it is at least this, S only if its
// reciprocal condition estimate is.
constexpr double kReducedWRcond = 1e-8;
constexpr double kReducedSRcond = 1e-12;
// Memory for the cached columns W⁻¹ B_j, in doubles.
constexpr double kReducedColumnBudget = 2e6;

}  // namespace

void ModeMlcp::enable_reduced(const KluSymbolic& w_symbolic, int max_active) {
  w_symbolic_ = &w_symbolic;
  max_active_ = max_active;
  w_state_ = 0;
  schur_.clear();
  schur_now_ = nullptr;
}

const Eigen::VectorXd& ModeMlcp::y_column(int j) {
  if (y_slot_.empty()) y_slot_.assign(static_cast<size_t>(m_), -1);
  if (y_slot_[j] < 0) {
    Eigen::VectorXd y = Eigen::VectorXd::Zero(n_);
    for (SparseMatrix::InnerIterator it(b_, j); it; ++it) y[it.row()] = it.value();
    w_factor_.solve(y);
    y_slot_[j] = static_cast<int>(y_cols_.size());
    y_cols_.push_back(std::move(y));
  }
  return y_cols_[static_cast<size_t>(y_slot_[j])];
}

bool ModeMlcp::factor_schur(const std::vector<char>& mode) {
  ++schur_clock_;
  if (schur_now_ != nullptr && schur_now_->mode == mode) {
    schur_now_->last_use = schur_clock_;
    ensure_columns(schur_now_->active);
    return schur_now_->ok;
  }
  if (schur_.empty()) schur_.resize(kSchurSlots);
  SchurFactor* slot = &schur_.front();
  for (SchurFactor& e : schur_) {
    if (!e.mode.empty() && e.mode == mode) {
      e.last_use = schur_clock_;
      schur_now_ = &e;
      ensure_columns(e.active);
      return e.ok;
    }
    if (e.last_use < slot->last_use) slot = &e;  // the least recently used (or a free) slot
  }
  slot->last_use = schur_clock_;
  schur_now_ = slot;
  build_schur(mode, *slot);
  return slot->ok;
}

void ModeMlcp::ensure_columns(const std::vector<int>& active) {
  if (static_cast<int>(active.size()) > max_active_) return;
  // The columns W⁻¹ B_j, cached while they fit in the budget (then the cache starts over).
  const double budget = kReducedColumnBudget / std::max(n_, 1);
  int missing = 0;
  for (int j : active)
    if (y_slot_.empty() || y_slot_[j] < 0) ++missing;
  if (missing == 0) return;
  if (static_cast<double>(y_cols_.size() + missing) > std::max(budget, 2.0 * max_active_)) {
    y_cols_.clear();
    y_slot_.assign(static_cast<size_t>(m_), -1);
  }
  for (int j : active) y_column(j);
}

void ModeMlcp::build_schur(const std::vector<char>& mode, SchurFactor& slot) {
  slot.mode = mode;
  slot.ok = false;
  std::vector<int>& active = slot.active;
  active.clear();
  for (int j = 0; j < m_; ++j)
    if (mode[j] || forced_[j]) active.push_back(j);
  const int a = static_cast<int>(active.size());
  if (a > max_active_) return;
  ensure_columns(active);
  count_dense(a);
  Eigen::MatrixXd& s = s_scratch_;
  s.setZero(a, a);
  for (int p = 0; p < a; ++p) {
    const int j = active[p];
    const RowMatrix& rows = mode[j] ? c_rows_ : c_off_rows_;
    for (int q = 0; q < a; ++q) {
      const Eigen::VectorXd& y = y_cols_[static_cast<size_t>(y_slot_[active[q]])];
      double v = 0;
      for (RowMatrix::InnerIterator it(rows, j); it; ++it) v += it.value() * y[it.index()];
      s(p, q) = v;
    }
    if (mode[j]) {
      for (RowMatrix::InnerIterator it(d_rows_, j); it; ++it) {
        const auto q = std::lower_bound(active.begin(), active.end(), it.index());
        if (q != active.end() && *q == it.index()) s(p, q - active.begin()) += it.value();
      }
    } else {
      s(p, p) += 1.0;
    }
  }
  if (a > 0) {
    slot.lu.compute(s);
    if (!(rcond_(slot.lu, LuRcond::l1_norm(s)) >= kReducedSRcond)) return;
  }
  slot.ok = true;
}

bool ModeMlcp::solve_reduced(const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                             const std::vector<char>& mode) {
  if (w_symbolic_ == nullptr || w_state_ < 0) return false;
  if (w_state_ == 0) {
    // Not worth a factorization of W for a mode with too many active pairs (a converter whose
    // switches are many: every new step size would pay one for nothing).
    int a = 0;
    for (int j = 0; j < m_ && a <= max_active_; ++j) a += (mode[j] || forced_[j]) ? 1 : 0;
    if (a > max_active_) return false;
    const bool ok =
        w_factor_.factor(*w_symbolic_, w_) == LuStatus::kOk && w_factor_.rcond() >= kReducedWRcond;
    ++stats_.w_factorizations;
    w_state_ = ok ? 1 : -1;
    if (!ok) return false;
  }
  if (!factor_schur(mode)) return false;
  const std::vector<int>& active = schur_now_->active;
  const int a = static_cast<int>(active.size());
  u_.resize(n_ + m_);
  u_.head(n_) = r;
  w_factor_.solve(u_.head(n_));
  ++stats_.mode_solves;
  ++stats_.reduced_solves;
  u_.tail(m_).setZero();
  if (a == 0) return true;
  g_.resize(a);
  for (int p = 0; p < a; ++p) {
    const int j = active[p];
    const RowMatrix& rows = mode[j] ? c_rows_ : c_off_rows_;
    double v = mode[j] ? -d[j] : 0.0;
    for (RowMatrix::InnerIterator it(rows, j); it; ++it) v -= it.value() * u_[it.index()];
    g_[p] = v;
  }
  lambda_a_ = schur_now_->lu.solve(g_);
  for (int p = 0; p < a; ++p) {
    const int j = active[p];
    u_.head(n_) += lambda_a_[p] * y_cols_[static_cast<size_t>(y_slot_[j])];
    u_[n_ + j] = lambda_a_[p];
  }
  return true;
}

}  // namespace nsspice::solvers
