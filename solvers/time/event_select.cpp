// Event-driven integration, part 2: the mode's DAE and the mode selection at events
// (event_driven.hpp for the equations).
#include <algorithm>
#include <cmath>

#include "solvers/linear/triplets.hpp"
#include "solvers/time/event_driven.hpp"

namespace nsspice::solvers {
namespace {

// Appends the rows j of a (m × cols, shifted) with mode[j] == want, times s.
void append_rows(Triplets& t, const SparseMatrix& a, int row0, int col0, double s,
                 const std::vector<char>& mode, char want) {
  for (int col = 0; col < a.outerSize(); ++col)
    for (SparseMatrix::InnerIterator it(a, col); it; ++it)
      if (mode[static_cast<size_t>(it.row())] == want)
        t.emplace_back(row0 + it.row(), col0 + col, s * it.value());
}

// J = [−G, B; −K_σ] (event_driven.hpp), on the union pattern of all modes.
SparseMatrix mode_j(const Mlcs& mlcs, const std::vector<char>& mode) {
  const int n = mlcs.n, m = mlcs.m;
  Triplets t;
  append_scaled(t, mlcs.G, 0, 0, -1.0);
  append_scaled(t, mlcs.B, 0, n, 1.0);
  // The union pattern: C, D, C_off and the identity in the pair rows, as explicit zeros.
  append_scaled(t, mlcs.C, n, 0, 0.0);
  append_scaled(t, mlcs.D, n, n, 0.0);
  append_scaled(t, mlcs.C_off, n, 0, 0.0);
  for (int j = 0; j < m; ++j) t.emplace_back(n + j, n + j, 0.0);
  // Conducting pairs (free or forced): C_j x + D_j λ = −d_j.
  append_rows(t, mlcs.C, n, 0, -1.0, mode, 1);
  append_rows(t, mlcs.D, n, n, -1.0, mode, 1);
  // Blocking pairs: λ_j = 0 (free: C_off_j = 0), C_off_j x + λ_j = 0 (ideal switches).
  append_rows(t, mlcs.C_off, n, 0, -1.0, mode, 0);
  for (int j = 0; j < m; ++j)
    if (!mode[static_cast<size_t>(j)]) t.emplace_back(n + j, n + j, -1.0);
  SparseMatrix j_mat(n + m, n + m);
  j_mat.setFromTriplets(t.begin(), t.end());
  j_mat.makeCompressed();
  return j_mat;
}

}  // namespace

SparseMatrix event_j_pattern(const Mlcs& mlcs) {
  return mode_j(mlcs, std::vector<char>(mlcs.m, 0));
}

void EventDriven::set_mode_system() {
  auto [it, inserted] = mode_ids_.emplace(mode_, static_cast<long>(mode_ids_.size()));
  j_ = mode_j(mlcs_, mode_);
  radau_->set_j(j_, it->second);
}

void EventDriven::forcing(double t, Eigen::VectorXd& f) const {
  f.resize(nz_);
  mlcs_.eval_b(t, s_, b_);
  f.head(n_) = b_;
  for (int j = 0; j < m_; ++j) f[n_ + j] = mode_[static_cast<size_t>(j)] ? -mlcs_.d[j] : 0.0;
}

bool EventDriven::select(double t, EventCause cause, const std::vector<char>& before,
                         const Eigen::VectorXd& q_minus, EventOutcome& outcome) {
  ++stats_.selections;
  const Eigen::VectorXd x_minus = z_.head(n_);
  // Two backward-Euler steps of δ: the first takes any jump, the second gives the regular λ
  // after it (and shows by its much smaller increment that the first one jumped).
  // Each is solved for the increment Δx = x⁺ − x (so that the LCP's tolerances scale with the
  // motion over δ, not with x):
  //   (G + E/δ) Δx − B λ⁺ = b(t + δ) − G x + (q − E x)/δ,   w⁺ = C Δx + D λ⁺ + (C x + d).
  Eigen::VectorXd x[2], lambda[2], w, dx;
  std::vector<char> mode = mode_;
  std::array<std::vector<char>, 2> step_modes;
  Eigen::VectorXd base = x_minus, q = q_minus;
  for (int k = 0; k < 2; ++k) {
    mlcs_.eval_b(t + (k + 1) * delta_, s_, b_);
    const Eigen::VectorXd r = b_ - mlcs_.G * base + (q - mlcs_.E * base) / delta_;
    const Eigen::VectorXd offsets = mlcs_.C * base + mlcs_.d;
    const std::vector<char> guess = mode;
    MlcpOutcome o = select_->solve(r, offsets, mode, dx, lambda[k], w);
    if (o.status != LcpStatus::kSolved && o.status != LcpStatus::kInaccurate) {
      // The increment form measures rounding against the motion over δ, but the solve's
      // rounding is that of the terms of r (G x: mA through a kΩ beside a capacitor's E/δ),
      // which can be larger: a conducting pair at a breakpoint then shows w_j ≈ 10⁻¹⁶ V against
      // increments of 10⁻⁸ V. The same step solved for x⁺ itself measures it against x.
      mode = guess;
      o = select_->solve(b_ + q / delta_, mlcs_.d, mode, dx, lambda[k], w);
      if (o.status == LcpStatus::kSolved || o.status == LcpStatus::kInaccurate) dx -= base;
    }
    if (o.status != LcpStatus::kSolved && o.status != LcpStatus::kInaccurate) {
      outcome.status = o.status;
      outcome.t = t;
      outcome.pairs = o.pairs;
      outcome.message = "no consistent mode after the event: " + o.message;
      return false;
    }
    step_modes[static_cast<size_t>(k)] = mode;
    x[k] = base + dx;
    base = x[k];
    q = mlcs_.E * x[k];
  }
  // A jump: some differential unknown moved far more over the first δ than over the second.
  const Eigen::VectorXd d1 = x[0] - x_minus, d2 = x[1] - x[0];
  const double floor =
      1e-13 * std::max(x_minus.lpNorm<Eigen::Infinity>(), x[1].lpNorm<Eigen::Infinity>());
  int jump_k = -1;
  double jump_size = 0;
  for (int k = 0; k < n_; ++k) {
    if (!differential_[static_cast<size_t>(k)]) continue;
    const double a = std::abs(d1[k]);
    if (a > 10.0 * (std::abs(d2[k]) + floor) && a > opt_.jump_tol * (z_scale_[k] + floor) &&
        a > jump_size) {
      jump_k = k;
      jump_size = a;
    }
  }
  // Initial data inconsistent with E x0 (UIC charges) count as a jump too.
  if (jump_k < 0 && (q_minus - mlcs_.E * x_minus).lpNorm<Eigen::Infinity>() >
                        opt_.jump_tol * (mlcs_.E * x[1]).lpNorm<Eigen::Infinity>())
    jump_k = n_;  // no single unknown to name
  const bool jumped = jump_k >= 0;
  const bool changed = mode != before;
  if (jumped) ++stats_.jumps;
  mode_ = mode;
  if (changed || jumped || cause == EventCause::kStart || cause == EventCause::kResume) {
    set_mode_system();
    ++applied_selections_;
    selection_modes_ = std::move(step_modes);
    t_ = std::min(t + 2 * delta_, opt_.t_stop);
    z_.head(n_) = x[1];
    z_.tail(m_) = lambda[1];
  }
  record_changes(t, before, cause, jump_k, x_minus, x[0], lambda[0]);
  return true;
}

void EventDriven::record_changes(double t, const std::vector<char>& before, EventCause cause,
                                 int jump_k, const Eigen::VectorXd& x_minus,
                                 const Eigen::VectorXd& x_jump,
                                 const Eigen::VectorXd& lambda_jump) {
  EventRecord base;
  base.t = t;
  base.cause = cause;
  if (jump_k >= 0 && jump_k < n_) {
    base.jump_unknown = jump_k;
    base.jump_from = x_minus[jump_k];
    base.jump_to = x_jump[jump_k];
  }
  bool any = false;
  for (int j = 0; j < m_; ++j) {
    if (before[static_cast<size_t>(j)] == mode_[static_cast<size_t>(j)]) continue;
    EventRecord r = base;
    r.pair = j;
    r.on = mode_[static_cast<size_t>(j)] != 0;
    if (jump_k >= 0) r.impulse = delta_ * lambda_jump[j];
    events_.push_back(r);
    ++stats_.mode_changes;
    any = true;
  }
  if (!any && jump_k >= 0) {
    events_.push_back(base);  // a jump without a mode change
  }
}

}  // namespace nsspice::solvers
