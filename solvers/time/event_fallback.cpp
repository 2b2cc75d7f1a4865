// Event-driven integration, part 4: the θ-scheme intervals (Zeno accumulations, stage matrices
// numerically singular at the step asked for) and their output (event_driven.hpp).
#include <algorithm>

#include "solvers/time/event_driven.hpp"
#include "solvers/time/theta_stepper.hpp"

namespace nsspice::solvers {

bool EventDriven::zeno(double t) {
  recent_.push_back(t);
  const double window = opt_.zeno_window * span_;
  while (!recent_.empty() && recent_.front() < t - window) recent_.pop_front();
  return static_cast<int>(recent_.size()) >= opt_.zeno_events;
}

bool EventDriven::zeno_fallback(EventOutcome& outcome) {
  // A Zeno interval right after the previous one (a persistent sliding or chattering mode)
  // gets twice its length, so that the cost of detecting it again stays bounded.
  const double length = opt_.fallback_steps * opt_.fallback_h;
  fallback_scale_ = t_ <= last_fallback_end_ + fallback_scale_ * length
                        ? std::min(2 * fallback_scale_, 1024.0)
                        : 1.0;
  return fallback(fallback_scale_ * length, opt_.fallback_h, 0.0, outcome);
}

bool EventDriven::fallback(double length, double h0, double singular_h, EventOutcome& outcome) {
  ThetaOptions to;
  to.theta = opt_.fallback_theta;
  // A Zeno interval: fixed steps (the error control of the θ-scheme would chase the chattering
  // down to its floor step); a singular stage matrix: error-controlled steps from h0.
  to.adaptive = singular_h > 0;
  to.reltol = opt_.fallback_reltol;
  to.atol = opt_.fallback_atol;
  to.h_max = opt_.fallback_h_max;
  to.h = to.adaptive ? std::min(h0, to.h_max) : h0;
  to.t_start = t_;
  to.t_stop = std::min(t_ + length, opt_.t_stop);
  to.lcp_solver = opt_.lcp_solver;
  FallbackInterval interval{t_, to.t_stop, static_cast<long>(recent_.size()), singular_h};
  recent_.clear();
  if (!(to.t_stop > to.t_start)) return true;
  ThetaStepper stepper(mlcs_, to);
  stepper.start(z_.head(n_), mlcs_.E * z_.head(n_), z_.tail(m_), mode_);
  while (!stepper.finished()) {
    const MlcpOutcome o = stepper.step();
    if (o.status != LcpStatus::kSolved && o.status != LcpStatus::kInaccurate) {
      outcome = {o.status, "θ-scheme over a fallback interval: " + o.message, o.pairs, stepper.t()};
      return false;
    }
    ++stats_.fallback_steps;
    if (!emit_grid(stepper, stepper.t())) return false;
    z_.head(n_) = stepper.x();
    z_.tail(m_) = stepper.lambda();
    t_ = stepper.t();
    update_scales(z_);
    if (!emit(t_, z_, stepper.xdot())) return false;
  }
  stats_.fallbacks.push_back(interval);
  last_fallback_end_ = t_;
  if (t_ >= opt_.t_stop) return true;
  mode_ = stepper.mode();
  for (size_t k = 0; k < mlcs_.switches.size(); ++k)
    switch_on_[k] = mode_[static_cast<size_t>(mlcs_.switches[k].pair)];
  // Resume: the grid restarts after the interval, the mode is selected afresh.
  const std::vector<char> before = mode_;
  if (!select(t_, EventCause::kResume, before, mlcs_.E * z_.head(n_), outcome)) return false;
  return emit(t_, z_, no_rate_);
}

bool EventDriven::emit_grid(const ThetaStepper& stepper, double t_until) {
  Eigen::VectorXd x, lambda;
  return emit_grid_points(stepper.t_prev(), t_until, [&](double tg) {
    stepper.interpolate(tg, x, lambda, rate_);
    scratch_.resize(nz_);
    scratch_ << x, lambda;
    return emit(tg, scratch_, rate_);
  });
}

}  // namespace nsspice::solvers
