#include "solvers/time/theta_stepper.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace nsspice::solvers {
namespace {
// Breakpoints closer than this fraction of h to a step end are taken as that step end.
constexpr double kSnap = 1e-9;
// A mode change is followed by a restart when some component of y moved by more than this
// factor times its previous increment (a jump, not smooth motion).
constexpr double kJumpFactor = 4.0;
// A restart step after a breakpoint is impulsive when its |y| exceeds the next step's by this.
constexpr double kImpulseFactor = 10.0;
}  // namespace

std::string ThetaOptions::validate() const {
  if (!(theta >= 0.5 && theta <= 1.0)) return fmt::format("theta must be in [0.5, 1], got {}", theta);
  if (!(h > 0) || !std::isfinite(h)) return fmt::format("the time step must be positive, got {}", h);
  if (!(t_stop > t_start)) return "the stop time must be after the start time";
  if (restart_steps < 1) return "restart_steps must be at least 1";
  if (cache_capacity < 2) return "the factorization cache needs at least 2 entries";
  return {};
}

ThetaStepper::ThetaStepper(const Mlcs& mlcs, const ThetaOptions& options)
    : mlcs_(mlcs), options_(options) {
  const SparseMatrix w_pattern = mlcs_.G + mlcs_.E;
  pattern_ = mode_matrix_pattern(w_pattern, mlcs_.B, mlcs_.C, mlcs_.D);
  symbolic_.analyze(pattern_);
}

ModeMlcp& ThetaStepper::solver_for(double theta_h) {
  auto it = solvers_.find(theta_h);
  if (it != solvers_.end()) return *it->second;
  if (solvers_.size() >= 8) solvers_.erase(solvers_.begin());  // rare: odd breakpoint steps
  SparseMatrix w = mlcs_.G + mlcs_.E * (1.0 / theta_h);
  w.makeCompressed();
  auto solver = std::make_unique<ModeMlcp>(w, mlcs_.B, mlcs_.C, mlcs_.D, symbolic_,
                                           options_.cache_capacity);
  return *solvers_.emplace(theta_h, std::move(solver)).first->second;
}

void ThetaStepper::start(const Eigen::VectorXd& x0, const Eigen::VectorXd& q0,
                         const Eigen::VectorXd& lambda0, std::vector<char> mode0) {
  t_ = t_next_ = options_.t_start;
  x_ = x0;
  q_ = q0;
  y_ = Eigen::VectorXd::Zero(mlcs_.n);
  y_prev_ = y_;
  lambda_ = lambda0;
  w_ = mlcs_.C * x_ + mlcs_.D * lambda_ + mlcs_.d;
  mode_ = std::move(mode0);
  restart_left_ = options_.restart_steps;
  since_breakpoint_ = 0;
}

MlcpOutcome ThetaStepper::step() {
  const double h = options_.h;
  double t_next = t_ + h;
  const double bp = mlcs_.breakpoint_after(t_ + kSnap * h);
  bool breakpoint = false;
  if (bp <= t_next + kSnap * h) {
    t_next = bp;
    breakpoint = true;
  }
  if (t_next >= options_.t_stop - kSnap * h) t_next = options_.t_stop;
  t_next_ = t_next;
  const double h_eff = t_next - t_;
  const double theta = restart_left_ > 0 ? 1.0 : options_.theta;
  ModeMlcp& solver = solver_for(theta * h_eff);

  mlcs_.eval_b(t_next, s_, b_);
  r_ = b_ + q_ / (theta * h_eff);
  if (theta < 1.0) r_ += ((1.0 - theta) / theta) * y_;
  std::vector<char> mode = mode_;
  const MlcpOutcome outcome = solver.solve(r_, mlcs_.d, mode, x_new_, lambda_new_, w_new_);
  if (outcome.status != LcpStatus::kSuccess && outcome.status != LcpStatus::kInaccurate)
    return outcome;

  Eigen::VectorXd q_new = mlcs_.E * x_new_;
  Eigen::VectorXd y_new = (q_new - q_) / h_eff;
  if (theta < 1.0) y_new = (y_new - (1.0 - theta) * y_) / theta;
  account_restart(y_new, breakpoint, outcome.mode_changed, theta);

  ++stats_.steps;
  if (outcome.mode_changed) ++stats_.mode_changes;
  if (outcome.status == LcpStatus::kInaccurate) ++stats_.inaccurate;
  stats_.max_residual = std::max(stats_.max_residual, outcome.residual);
  t_ = t_next;
  x_.swap(x_new_);
  lambda_.swap(lambda_new_);
  w_.swap(w_new_);
  q_.swap(q_new);
  y_prev_.swap(y_);
  y_.swap(y_new);
  mode_ = std::move(mode);
  return outcome;
}

bool ThetaStepper::y_jumped(const Eigen::VectorXd& y_new) const {
  const double floor = 1e-9 * std::max(y_.lpNorm<Eigen::Infinity>(), y_new.lpNorm<Eigen::Infinity>());
  for (Eigen::Index i = 0; i < y_new.size(); ++i) {
    if (std::abs(y_new[i] - y_[i]) > kJumpFactor * std::abs(y_[i] - y_prev_[i]) + floor) return true;
  }
  return false;
}

void ThetaStepper::account_restart(const Eigen::VectorXd& y_new, bool breakpoint,
                                   bool mode_changed, double theta_eff) {
  if (restart_left_ > 0) {
    --restart_left_;
    ++stats_.restart_steps;
  }
  // Impulse: the first restart step's y (Δq/h) dwarfs the next one's.
  ++since_breakpoint_;
  const double y_norm = y_new.lpNorm<Eigen::Infinity>();
  if (since_breakpoint_ == 1) restart_y_norm_ = y_norm;
  if (since_breakpoint_ == 2 && restart_y_norm_ > kImpulseFactor * y_norm && restart_y_norm_ > 0)
    stats_.impulse_times.push_back(t_);
  if (breakpoint) {
    ++stats_.breakpoints;
    restart_left_ = options_.restart_steps;
    since_breakpoint_ = 0;
  } else if (mode_changed && options_.restart_on_jump && theta_eff < 1.0 && y_jumped(y_new)) {
    restart_left_ = std::max(restart_left_, 1);
  }
}

RunStats ThetaStepper::stats() const {
  RunStats s = stats_;
  for (const auto& [key, solver] : solvers_) {
    const ModeMlcpStats& m = solver->stats();
    s.lemke_calls += m.lemke_calls;
    s.pivots += m.pivots;
    s.mode_solves += m.mode_solves;
    s.factorizations += solver->cache().factorizations();
    s.refactorizations += solver->cache().refactorizations();
    s.cache_hits += solver->cache().stats().hits;
    s.cache_misses += solver->cache().stats().misses;
  }
  return s;
}

}  // namespace nsspice::solvers
