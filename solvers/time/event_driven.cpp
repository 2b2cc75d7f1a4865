// Event-driven integration, part 1: the loop, error control and output
// (equations and references in event_driven.hpp).
#include "solvers/time/event_driven.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "solvers/linear/triplets.hpp"
#include "solvers/time/decimal_grid.hpp"

namespace nsspice::solvers {
namespace {

// Step-doubling estimate of the error of the two half steps: (z_{h/2,h/2} − z_h)/(2⁵ − 1).
constexpr double kDoublingDivisor = 31.0;
// Step size controller: h ← h · clamp(kSafety · err^(−1/6), kShrink, kGrow); a proposed growth
// below kKeep is not taken (the cached stage factorization is kept).
constexpr double kSafety = 0.9, kShrink = 0.2, kGrow = 5.0, kKeep = 1.25;
// Times closer than this fraction of max(|t|, t_stop − t_start) are one instant (a few hundred
// units of rounding of t).
constexpr double kSnap = 64 * std::numeric_limits<double>::epsilon();

}  // namespace

std::string EventOptions::validate() const {
  if (!(t_stop > t_start)) return "the stop time must be after the start time";
  if (!(rtol > 0 && rtol < 1)) return fmt::format("evrtol must be in (0, 1), got {}", rtol);
  if (!(atol > 0)) return fmt::format("evatol must be positive, got {}", atol);
  if (h_max < 0 || h_init < 0 || fallback_h < 0 || fallback_h_max < 0 || output_step < 0)
    return "step sizes must not be negative";
  if (!(time_tol > 0 && time_tol < 1e-3))
    return fmt::format("evtimetol must be in (0, 1e-3), got {}", time_tol);
  if (!(select_step > 0 && select_step < 1e-3))
    return fmt::format("the selection step must be in (0, 1e-3), got {}", select_step);
  if (zeno_events < 2 || fallback_steps < 1) return "zeno_events ≥ 2 and fallback_steps ≥ 1";
  if (!(fallback_reltol > 0 && fallback_reltol < 1))
    return fmt::format("the fallback's reltol must be in (0, 1), got {}", fallback_reltol);
  if (!(fallback_theta >= 0.5 && fallback_theta <= 1)) return "fallback θ must be in [0.5, 1]";
  return {};
}

const char* to_string(EventCause cause) {
  switch (cause) {
    case EventCause::kStart:
      return "start";
    case EventCause::kGuard:
      return "guard";
    case EventCause::kSwitch:
      return "switch";
    case EventCause::kBreakpoint:
      return "breakpoint";
    case EventCause::kResume:
      return "resume";
  }
  return "?";
}

EventDriven::EventDriven(const Mlcs& mlcs, const EventOptions& options)
    : mlcs_(mlcs), opt_(options), n_(mlcs.n), m_(mlcs.m), nz_(mlcs.n + mlcs.m) {
  span_ = opt_.t_stop - opt_.t_start;
  if (opt_.h_max <= 0) opt_.h_max = span_ / 20;
  if (opt_.h_init <= 0) opt_.h_init = span_ / 1000;
  opt_.h_init = std::min(opt_.h_init, opt_.h_max);
  if (opt_.fallback_h <= 0) opt_.fallback_h = span_ / 1e4;
  if (opt_.fallback_h_max <= 0) opt_.fallback_h_max = opt_.fallback_h;
  // M = diag(E, 0).
  Triplets t;
  append_scaled(t, mlcs_.E, 0, 0, 1.0);
  differential_.assign(static_cast<size_t>(n_), 0);
  for (const auto& e : t)
    if (e.value() != 0) differential_[static_cast<size_t>(e.col())] = 1;
  m_mat_.resize(nz_, nz_);
  m_mat_.setFromTriplets(t.begin(), t.end());
  m_mat_.makeCompressed();
  j_pattern_ = event_j_pattern(mlcs_);
  radau_ = std::make_unique<RadauIIA>(m_mat_, j_pattern_);
  // The selection MLCP: backward Euler over δ.
  delta_ = opt_.select_step * span_;
  SparseMatrix w = mlcs_.G + mlcs_.E * (1.0 / delta_);
  w.makeCompressed();
  select_pattern_ = mode_matrix_pattern(mlcs_.G + mlcs_.E, mlcs_.B, mlcs_.C, mlcs_.D, mlcs_.C_off);
  select_symbolic_.analyze(select_pattern_);
  select_ = std::make_unique<ModeMlcp>(w, mlcs_.B, mlcs_.C, mlcs_.D, mlcs_.C_off, mlcs_.forced,
                                       select_symbolic_, 16);
  LcpPolicy policy;
  policy.force = opt_.lcp_solver;
  select_->set_lcp_policy(policy);
  z_scale_ = Eigen::VectorXd::Zero(nz_);
  const auto guards = static_cast<Eigen::Index>(m_ + mlcs_.switches.size());
  guard_scale_ = Eigen::VectorXd::Zero(guards);
  guard_tol_ = Eigen::VectorXd::Zero(guards);
}

EventDriven::~EventDriven() = default;

EventStats EventDriven::stats() const {
  EventStats s = stats_;
  s.radau_steps = radau_->stats().steps;
  s.factorizations = radau_->stats().factorizations;
  return s;
}

bool EventDriven::radau(double t0, double h, const Eigen::VectorXd& z0, RadauStep& out) {
  return radau_->step(
      t0, h, z0, [this](double t, Eigen::VectorXd& f) { forcing(t, f); }, out);
}

double EventDriven::error_norm(const Eigen::VectorXd& z0, const Eigen::VectorXd& a,
                               const Eigen::VectorXd& b, bool algebraic) const {
  // With `algebraic`, every unknown, λ and source currents included: a guard λ_j of an index-2
  // constraint (a diode putting a capacitor across a source) is only as accurate as this makes
  // it. Without, the differential unknowns only (the columns of E).
  double err = 0;
  for (int k = 0; k < nz_; ++k) {
    if (!algebraic && (k >= n_ || !differential_[static_cast<size_t>(k)])) continue;
    const double scale =
        opt_.atol + opt_.rtol * std::max({std::abs(z0[k]), std::abs(b[k]), z_scale_[k]});
    err = std::max(err, std::abs(a[k] - b[k]) / scale);
  }
  return err / kDoublingDivisor;
}

bool EventDriven::emit(double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zdot) {
  if (t <= last_emitted_) return true;
  last_emitted_ = t;
  if (zdot.size() < n_) {
    if (zero_rate_.size() != n_) zero_rate_ = Eigen::VectorXd::Zero(n_);
    return observer_(t, z.head(n_), z.tail(m_), zero_rate_);
  }
  return observer_(t, z.head(n_), z.tail(m_), zdot.head(n_));
}

bool EventDriven::emit_end(const RadauStep& seg, double t) {
  seg.rate(std::clamp((t - seg.t0) / seg.h, 0.0, 1.0), rate_);
  return emit(t, seg.end(), rate_);
}

bool EventDriven::emit_grid(const RadauStep& seg, double t_until) {
  Eigen::VectorXd u;
  return emit_grid_points(seg.t0, t_until, [&](double tg) {
    seg.dense((tg - seg.t0) / seg.h, u);
    seg.rate((tg - seg.t0) / seg.h, rate_);
    return emit(tg, u, rate_);
  });
}

bool EventDriven::emit_grid_points(double t_from, double t_until,
                                   const std::function<bool(double)>& at) {
  if (opt_.output_step <= 0) return true;
  const double eps = 1e-9 * opt_.output_step;
  const DecimalGrid grid(opt_.t_start, opt_.output_step);  // exact decimal times
  for (;;) {
    const double tg = grid.at(grid_k_);
    if (tg > t_until - eps || tg > opt_.t_stop + eps) break;
    ++grid_k_;
    // Already passed, or before the first point wanted.
    if (tg <= t_from || tg < opt_.output_from) continue;
    if (!at(tg)) return false;
  }
  // A grid point on t_until itself is the integrator's point.
  const double tg = grid.at(grid_k_);
  if (std::abs(tg - t_until) <= eps) ++grid_k_;
  return true;
}

EventOutcome EventDriven::run(const Eigen::VectorXd& x0, const Eigen::VectorXd& q0,
                              const Eigen::VectorXd& lambda0, std::vector<char> mode0,
                              const Observer& observer) {
  EventOutcome outcome;
  observer_ = observer;
  if (!begin(x0, q0, lambda0, std::move(mode0), outcome)) return outcome;
  double h = opt_.h_init;
  Trial trial;
  while (t_ < opt_.t_stop) {
    if (!plan_step(h, trial)) {  // at the stop time already
      t_ = opt_.t_stop;
      emit(t_, z_, no_rate_);
      break;
    }
    const Next next = attempt_step(h, trial, outcome);
    if (next == Next::kStop) return outcome;
    if (next == Next::kRetry) continue;
    if (accept_step(trial, h, outcome) == Next::kStop) return outcome;
  }
  return outcome;
}

bool EventDriven::begin(const Eigen::VectorXd& x0, const Eigen::VectorXd& q0,
                        const Eigen::VectorXd& lambda0, std::vector<char> mode0,
                        EventOutcome& outcome) {
  t_ = opt_.t_start;
  z_.resize(nz_);
  z_.head(n_) = x0;
  z_.tail(m_) = lambda0;
  mode_ = std::move(mode0);
  mode_.resize(static_cast<size_t>(m_), 0);
  switch_on_.clear();
  for (const auto& sw : mlcs_.switches) {
    const double s = sw.c.dot(x0);
    const bool before =
        opt_.switch_state_from_mode ? mode_[static_cast<size_t>(sw.pair)] != 0 : sw.initially_on;
    const bool on = sw.next_state(s, before);
    switch_on_.push_back(on);
    mode_[static_cast<size_t>(sw.pair)] = on;
  }
  update_scales(z_);
  set_mode_system();
  grid_k_ = 0;
  if (!emit(t_, z_, no_rate_)) return false;
  if (opt_.output_step > 0) grid_k_ = 1;
  const std::vector<char> mode_before = mode_;  // a copy: select() updates mode_
  if (!select(t_, EventCause::kStart, mode_before, q0, outcome)) return false;
  return emit(t_, z_, no_rate_);
}

bool EventDriven::plan_step(double h, Trial& trial) const {
  // Breakpoints and the stop time closer than rounding are the same instant: no step of
  // 10⁻²¹ s (whose stage matrix, E/h against G, is numerically singular) is taken to them.
  const double snap = kSnap * std::max(std::abs(t_), span_);
  trial.limit = std::min(mlcs_.breakpoint_after(t_ + snap), opt_.t_stop);
  if (opt_.t_stop - trial.limit <= snap) trial.limit = opt_.t_stop;
  if (trial.limit - t_ <= snap) return false;
  trial.h = opt_.fixed_step ? opt_.h_max : std::min(h, opt_.h_max);
  if (trial.limit - t_ <= 1.1 * trial.h) trial.h = trial.limit - t_;
  trial.to_limit = t_ + trial.h >= trial.limit;
  trial.h_next = h;
  return true;
}

EventDriven::Next EventDriven::attempt_step(double& h, Trial& trial, EventOutcome& outcome) {
  // The step: one of trial.h (fixed step), or two of trial.h/2 checked against it.
  const double h_try = trial.h;
  if (!radau(t_, h_try, z_, full_) ||
      (!opt_.fixed_step && (!radau(t_, h_try / 2, z_, half_[0]) ||
                            !radau(t_ + h_try / 2, h_try / 2, half_[0].end(), half_[1])))) {
    // Numerically singular at this step (a regular mode can be: E/h against G), or a mode
    // without a unique solution: the θ-scheme, which selects its modes step by step, takes
    // over for fallback_steps such steps; it fails in turn if no mode can go on.
    return fallback(opt_.fallback_steps * h_try, h_try, h_try, outcome) ? Next::kRetry
                                                                        : Next::kStop;
  }
  if (opt_.fixed_step) {
    trial.segs = {&full_};
    return Next::kGo;
  }
  double err = error_norm(z_, full_.end(), half_[1].end(), true);
  double factor = std::clamp(kSafety * std::pow(std::max(err, 1e-30), -1.0 / 6), kShrink, kGrow);
  if (opt_.output_step > 0) {
    // Grid points come from the collocation polynomials, of order 3 only: the full step's
    // polynomial at the midpoint against the half step's end estimates its error, which
    // those of the half steps divide by 2⁴. Bounded too when a grid is asked.
    full_.dense(0.5, scratch_);
    const double dense = error_norm(z_, scratch_, half_[0].end(), false) * kDoublingDivisor / 16;
    factor = std::min(
        factor, std::clamp(kSafety * std::pow(std::max(dense, 1e-30), -0.25), kShrink, kGrow));
    err = std::max(err, dense);
  }
  if (err > 1) {
    ++stats_.rejected;
    h = h_try * factor;
    if (h < 1e-14 * std::max(std::abs(t_), span_)) {
      outcome = {Status::kNoConvergence, fmt::format("step size underflow ({:.3g} s)", h), {}, t_};
      return Next::kStop;
    }
    return Next::kRetry;
  }
  if (!trial.to_limit || h_try >= h)
    trial.h_next = factor >= 1 && factor < kKeep ? h : h_try * factor;
  trial.segs = {&half_[0], &half_[1]};
  return Next::kGo;
}

EventDriven::Next EventDriven::accept_step(const Trial& trial, double& h, EventOutcome& outcome) {
  // The first guard crossing, if any.
  for (const RadauStep* seg : trial.segs) {
    const double seg_end =
        seg == trial.segs.back() && trial.to_limit ? trial.limit : seg->t0 + seg->h;
    Crossing c = first_crossing(*seg);
    RadauStep at;
    const double te = c.guard < 0 ? -1.0 : locate_first(*seg, c, at);
    if (te < 0) {
      if (!emit_grid(*seg, seg_end) || !emit_end(*seg, seg_end)) return Next::kStop;
      continue;
    }
    if (!emit_grid(*seg, te) || !emit_end(at, te)) return Next::kStop;
    return handle_event(te, at, c, outcome) ? Next::kRetry : Next::kStop;
  }
  ++stats_.steps;
  t_ = trial.to_limit ? trial.limit : t_ + trial.h;
  z_ = trial.segs.back()->end();
  update_scales(z_);
  h = trial.h_next;
  if (trial.to_limit && t_ < opt_.t_stop) {
    const std::vector<char> before = mode_;
    if (!select(t_, EventCause::kBreakpoint, before, mlcs_.E * z_.head(n_), outcome))
      return Next::kStop;
    if (!emit(t_, z_, no_rate_)) return Next::kStop;
  }
  return Next::kGo;
}

double EventDriven::locate_first(const RadauStep& seg, Crossing& c, RadauStep& at) {
  double te = locate(seg, c, at);
  // Another guard may have crossed before the one located: locate it on the shorter step.
  for (int k = 0; k < 4 && te >= 0; ++k) {
    const Crossing earlier = first_crossing(at);
    if (earlier.guard < 0 || earlier.guard == c.guard || earlier.hi >= 1) break;
    RadauStep at2;
    const double te2 = locate(at, earlier, at2);
    if (te2 < 0) break;
    c = earlier;
    te = te2;
    at = at2;
  }
  return te;
}

bool EventDriven::handle_event(double te, const RadauStep& at, const Crossing& c,
                               EventOutcome& outcome) {
  t_ = te;
  z_ = at.end();
  update_scales(z_);
  const std::vector<char> before = mode_;
  guard_values(z_, g_);
  bool flipped = false;
  for (size_t k = 0; k < mlcs_.switches.size(); ++k) {
    const int guard = m_ + static_cast<int>(k);
    if (guard != c.guard && !(g_[guard] <= 0)) continue;  // the located one may sit at +0
    switch_on_[k] = !switch_on_[k];
    mode_[static_cast<size_t>(mlcs_.switches[k].pair)] = switch_on_[k];
    flipped = true;
  }
  ++stats_.events;
  ++stats_.steps;
  if (!select(te, flipped ? EventCause::kSwitch : EventCause::kGuard, before, mlcs_.E * z_.head(n_),
              outcome))
    return false;
  if (!emit(t_, z_, no_rate_)) return false;
  return !zeno(te) || zeno_fallback(outcome);
}

}  // namespace nsspice::solvers
