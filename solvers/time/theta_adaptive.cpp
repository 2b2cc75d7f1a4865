// θ-scheme with error-controlled steps (theta_stepper.hpp, "Adaptive steps"): the step loop —
// step size, breakpoints, rejection, acceptance — and the handling of event accumulations.
// The error estimate is step_control.hpp's; the location of switching instants is
// theta_locate.cpp's.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "solvers/time/theta_stepper.hpp"

namespace nsspice::solvers {
namespace {

// More than this many switching instants within one error-controlled step is an accumulation
// (chattering, a sliding mode, Zeno): the steps then take the mode changes without location.
constexpr int kZenoEvents = 16;
// An accumulation ends after this many consecutive steps without a mode change ...
constexpr int kFallbackQuiet = 20;
// ... or after this many steps (then it is detected afresh if it goes on).
constexpr int kFallbackSteps = 2000;
// Steps of an accumulation, as a fraction of the error-controlled step before it.
constexpr double kFallbackFraction = 0.1;
// Tries (rejections and redone steps) for one step before the run stops.
constexpr int kMaxTries = 200;
// A step cut on an output time to less than this fraction of its planned size is a sliver.
constexpr double kSliver = 0.1;

}  // namespace

void ThetaStepper::mark_discontinuity() {
  // The derivatives may jump at t_: restart steps, and the error estimate starts a new phase.
  restart_.discontinuity(options_.restart_steps);
  estimator_->restart(t_, x_);
  phase_break_ = true;
}

double ThetaStepper::next_output_time(double t) const {
  const DecimalGrid grid(options_.output_from, options_.output_step);
  long k = static_cast<long>(
      std::max(0.0, std::floor((t - options_.output_from) / options_.output_step)));
  while (grid.at(k) <= t) ++k;
  return grid.at(k);
}

bool ThetaStepper::zeno_event(double t) {
  recent_events_.push_back(t);
  while (!recent_events_.empty() && recent_events_.front() < t - h_scale_)
    recent_events_.pop_front();
  if (static_cast<int>(recent_events_.size()) < kZenoEvents) return false;
  recent_events_.clear();
  fallback_left_ = kFallbackSteps;
  fallback_quiet_ = 0;
  h_next_ = kFallbackFraction * h_scale_;
  return true;
}

double ThetaStepper::step_error(std::span<const TrajectoryPoint> candidate, double h_eff,
                                double theta, int substeps, bool jump,
                                const std::vector<char>& mode) {
  // δ = K(σ)⁻¹ [E τ/(θh); 0] with the step's own mode matrix (step_control.hpp).
  ringing_ = false;
  if (!estimator_->truncation(candidate, h_eff, theta, substeps, jump, tau_)) return -1.0;
  const double theta_h = substeps > 1 ? h_eff / substeps : theta * h_eff;
  rhs_.noalias() = mlcs_.E * tau_;
  rhs_ /= theta_h;
  if (zero_d_.size() != mlcs_.m) zero_d_ = Eigen::VectorXd::Zero(mlcs_.m);
  if (!solver_for(theta_h).solve_in_mode(rhs_, zero_d_, mode, delta_, delta_lambda_, delta_w_)) {
    // A singular mode matrix (a degenerate mode from pivoting): the states' own τ.
    if (substeps > 1) tau_ *= substeps;
    return std::max(estimator_->state_norm(tau_, x_new_),
                    estimator_->interpolation(candidate.back(), &ringing_));
  }
  if (substeps > 1) delta_ *= substeps;
  // The step's own error, and that of the dense output over it.
  double step = estimator_->norm(delta_, x_new_);
  double dense = estimator_->interpolation(candidate.back(), &ringing_);
  if (std::max(step, dense) > 1) {
    // Above tolerance: is it more than rounding? The floor F = 2s|ν| (step_control.hpp).
    if (e_abs_.size() == 0) e_abs_ = mlcs_.E.cwiseAbs();
    estimator_->rounding_rhs(e_abs_, theta_h, rhs_);
    if (solver_for(theta_h).solve_in_mode(rhs_, zero_d_, mode, noise_, delta_lambda_, delta_w_)) {
      noise_ = (2.0 * substeps) * noise_.cwiseAbs();
      step = estimator_->norm(delta_, x_new_, &noise_);
      dense = estimator_->interpolation(candidate.back(), &ringing_, &noise_);
      if (std::max(step, dense) <= 1) ++stats_.rounding_steps;
    }
  }
  if (step > 1) ringing_ = false;  // the step itself is too long
  return std::max(step, dense);
}

bool ThetaStepper::flip_switches(const std::vector<int>& pairs) {
  bool any = false;
  for (int j : pairs) {
    const int k = switch_of_pair_[static_cast<size_t>(j)];
    if (k < 0) continue;
    switch_on_[static_cast<size_t>(k)] = !switch_on_[static_cast<size_t>(k)];
    mode_[static_cast<size_t>(j)] = switch_on_[static_cast<size_t>(k)];
    ++stats_.switch_events;
    any = true;
  }
  return any;
}

bool ThetaStepper::flip_at_start(double t_next, const std::vector<int>& pairs,
                                 std::vector<char>& mode) {
  // The MLCP's solution set is not unique at the edge (a pair with λ = w = 0): solved again from
  // the guess with those pairs flipped, mode iteration keeps the flipped mode when it is feasible.
  std::vector<char> trial = mode;
  bool any = false;
  for (int j : pairs) {
    const bool forced = !mlcs_.forced.empty() && mlcs_.forced[static_cast<size_t>(j)];
    if (forced || trial[static_cast<size_t>(j)] != mode_[static_cast<size_t>(j)]) continue;
    trial[static_cast<size_t>(j)] = !trial[static_cast<size_t>(j)];
    any = true;
  }
  if (!any) return false;
  const Eigen::VectorXd x = x_new_, lambda = lambda_new_, w = w_new_;
  const auto inner = inner_;
  if (ok(attempt(t_next, trial)) && trial != mode_) {
    mode = std::move(trial);
    return true;
  }
  x_new_ = x;
  lambda_new_ = lambda;
  w_new_ = w;
  inner_ = inner;
  mlcs_.eval_b(t_next, s_, b_next_);
  return false;
}

bool ThetaStepper::answer_in_old_mode(double t_next, MlcpOutcome& outcome, Location& loc) {
  // Circuits with kink pairs (default treatment): the step is solved in the previous mode first;
  // when that mode does not hold, its first crossing is located from that solution, without the
  // MLCP's answer at t_next (which pivots through every segment the step crosses, though only
  // the first crossing is kept). The MLCP is solved as before when the mode holds to its check
  // but no guard is violated (degenerate), or K(σ) is singular.
  // (Not with smooth kink pairs either: the old mode fails at their crossings, which are no
  // located instants.)
  if (!has_kink_pairs_ || options_.smooth_kinks || has_smooth_pairs_ || capture_) return false;
  bool solved = false;
  if (attempt_in_old_mode(t_next, outcome, solved)) return true;
  if (!solved) return false;
  loc = locate(t_next, mode_, outcome);
  return loc.located || loc.at_start;
}

MlcpOutcome ThetaStepper::step_adaptive() {
  std::vector<char>& mode = mode_try_;
  const double h_max = options_.h_max > 0 ? options_.h_max : span_ / 50;
  int at_start_tries = 0;
  double h_first = 0;  // the first try's step (a failure at the floor says how far it fell)
  for (int tries = 0;; ++tries) {
    if (tries == kMaxTries) {
      MlcpOutcome stuck;
      stuck.status = LcpStatus::kNoConvergence;
      stuck.message = fmt::format(
          "no step from t = {:.9g} s could be taken in {} tries (last h = {:.3g} s): the step "
          "size collapsed",
          t_, kMaxTries, h_next_);
      return stuck;
    }
    const double snap = 1e-12 * std::max(span_, std::abs(t_));
    const double h_floor = floor_step(span_, t_);
    const bool in_fallback = fallback_left_ > 0;
    if (in_fallback) restart_.in_accumulation();
    double h = in_fallback ? std::min(h_next_, kFallbackFraction * h_scale_) : h_next_;
    h = std::clamp(h, h_floor, h_max);
    double t_next = t_ + h;
    if (!(next_breakpoint_ > t_ + snap)) next_breakpoint_ = mlcs_.breakpoint_after(t_ + snap);
    bool breakpoint = false;
    if (next_breakpoint_ <= t_next + snap) {
      t_next = next_breakpoint_;
      breakpoint = true;
    } else if (next_breakpoint_ < t_next + 0.5 * h) {
      t_next = t_ + 0.5 * (next_breakpoint_ - t_);  // no sliver before the breakpoint
    }
    if (t_next >= options_.t_stop - snap) {
      t_next = options_.t_stop;
      breakpoint = false;
    } else if (options_.t_stop < t_next + 0.5 * h) {
      t_next = t_ + 0.5 * (options_.t_stop - t_);
    }
    bool output_cut = false;  // the phase's first step ends early, on an output time
    if (phase_break_ && options_.output_step > 0) {
      const double g = next_output_time(t_ + snap);
      if (g < t_next - snap) {
        t_next = g;
        breakpoint = false;
        output_cut = true;
      }
    }
    t_next_ = t_next;
    double h_eff = t_next - t_;
    if (tries == 0) h_first = h_eff;
    const double theta = restart_.theta(options_.theta);
    mode = mode_;
    MlcpOutcome outcome;
    Location loc;
    if (!(!in_fallback && answer_in_old_mode(t_next, outcome, loc))) {
      loc = Location{};
      outcome = attempt(t_next, mode);
    }
    // A step whose complementarity problem failed is tried shorter, down to the floor: long
    // steps weaken the capacitors' hold on the pairs, and a circuit with positive feedback (a
    // transistor astable: tests/regression/bjt_astable_test.cpp) then poses an LCP whose matrix
    // is not a P-matrix, on which pivoting can fail although the step has an answer.
    const auto shorter = [&](MlcpOutcome& failed) {
      if (h > h_floor) {
        ++stats_.rejected_steps;
        h_next_ = h_eff / 4;
        return true;
      }
      if (tries > 0)
        failed.message += fmt::format(
            " (the step from t was tried {} times, h from {:.3g} s down to the floor {:.3g} s)",
            tries + 1, h_first, h_eff);
      return false;
    };
    if (!ok(outcome)) {
      if (shorter(outcome)) continue;
      return outcome;
    }
    bool event = false;  // the mode changes at the end of this step (or changed at its start)
    kink_step_ = false;
    if (!in_fallback) {
      if (!loc.located && !loc.at_start) loc = locate(t_next, mode, outcome);
      if (!ok(outcome)) {  // a trial solve of the location
        if (shorter(outcome)) continue;
        return outcome;
      }
      kink_step_ = loc.kink;
      if (loc.at_start && kink_pairs(loc.pairs) && at_start_tries < kZenoEvents) {
        // Kink pairs at their edge at t_: they take their next segment there (x, λ and y are
        // continuous across a kink) and the step is tried again from it as a restart.
        ++at_start_tries;
        for (int j : loc.pairs) mode_[static_cast<size_t>(j)] = !mode_[static_cast<size_t>(j)];
        mark_discontinuity();
        continue;
      }
      if (loc.at_start) {
        // The crossing is at t_ (a located instant, or a source step): switches flip now and
        // the step is redone from the new state by backward Euler; a diode's new mode is the
        // MLCP's answer, taken by a backward-Euler step (no energy created at the switch).
        const std::vector<char> minus = mode_;
        const bool flipped = flip_switches(loc.pairs);
        if (flipped) note_switch_flip(minus);
        const bool was_restart = restart_.active();
        mark_discontinuity();
        if (++at_start_tries > kZenoEvents && zeno_event(t_)) continue;
        if (flipped || !was_restart) continue;
        mode = mode_;
        outcome = attempt(t_next, mode);  // the locate trials overwrote the solution
        if (!ok(outcome)) {
          if (shorter(outcome)) continue;
          return outcome;
        }
        if (flip_at_start(t_next, loc.pairs, mode)) outcome.mode_changed = true;
        if (switch_crossed(x_new_)) {
          // The pairs that changed at t_ moved a switch control across its threshold (a
          // comparator's output jumps, and a switch follows it): the new mode holds from t_, and
          // the step is tried again from it, so that the switch's crossing is located too (at
          // t_, where its control jumped). Taken as it came, the switch flipped a step late:
          // 5–14 µs of a 100 µs PWM period, +3 % on an inverter's load current.
          mode_ = mode;
          mark_discontinuity();
          continue;
        }
      } else if (loc.located) {
        t_next = t_next_;
        h_eff = t_next - t_;
        breakpoint = false;
        event = true;
        mode = mode_;  // the step ends in the previous mode, at the crossing
        outcome.mode_changed = false;
      }
    }
    if (!x_new_.allFinite() || !lambda_new_.allFinite()) {
      // Overflow or an invalid step (never accepted): shorter, else a numerical failure.
      if (h > h_floor) {
        ++stats_.rejected_steps;
        h_next_ = h_eff / 4;
        continue;
      }
      MlcpOutcome bad;
      bad.status = LcpStatus::kNumericalFailure;
      bad.message = "the step's solution is not finite (overflow)";
      return bad;
    }
    // Local error of the step (the substeps of a restart estimate their own when the first one
    // holds a state jump).
    std::vector<TrajectoryPoint>& candidate = candidate_;
    candidate.clear();
    for (const auto& [ti, xi] : inner_) candidate.push_back({ti, &xi});
    candidate.push_back({t_next, &x_new_});
    const int substeps = theta == 1.0 && options_.theta < 1.0 ? options_.restart_substeps : 1;
    const bool jump = jump_in_substeps(t_next);
    const double err = in_fallback ? -1.0
                                   : step_error(candidate, h_eff, theta, substeps, jump,
                                                loc.located ? mode_ : mode);
    // Trapezoidal ringing of an algebraic unknown (ErrorEstimator::interpolation) is damped,
    // not resolved: the step is kept and backward-Euler steps follow (below).
    const bool ringing = err > 1 && ringing_ && theta < 1.0;
    if (err > 1 && h > h_floor && !ringing) {
      ++stats_.rejected_steps;
      h_next_ = ErrorEstimator::ladder_floor(ErrorEstimator::propose(h_eff, err, theta));
      continue;
    }
    bool damp = false;  // a θ-step at the floor still above tolerance: ringing (below)
    if (ringing) {
      ++stats_.damped_ringing;
      damp = true;
    } else if (err > 1) {
      ++stats_.floor_steps;
      damp = theta < 1.0;
    }

    // Accept.
    at_edge_.clear();
    if (event) at_edge_ = loc.pairs;
    const std::vector<char> before = mode_;
    if (breakpoint) ++stats_.breakpoints;
    accept_point(t_next, h_eff, theta, outcome, breakpoint || event, mode);
    stats_.h_smallest = stats_.steps == 1 ? h_eff : std::min(stats_.h_smallest, h_eff);
    stats_.h_largest = std::max(stats_.h_largest, h_eff);
    if (in_fallback) {
      // Switches follow their control at the step's end (no location in an accumulation).
      const std::vector<char> minus = mode_;
      for (size_t k = 0; k < mlcs_.switches.size(); ++k) {
        const auto& sw = mlcs_.switches[k];
        const bool on = sw.next_state(sw.c.dot(x_), switch_on_[k]);
        if (on == static_cast<bool>(switch_on_[k])) continue;
        note_switch_flip(minus);
        switch_on_[k] = on;
        mode_[static_cast<size_t>(sw.pair)] = on;
        ++stats_.switch_events;
      }
      ++stats_.fallback_steps;
      stats_.fallback_time += h_eff;
      fallback_quiet_ = outcome.mode_changed ? 0 : fallback_quiet_ + 1;
      if (--fallback_left_ == 0 || fallback_quiet_ >= kFallbackQuiet) {
        fallback_left_ = 0;
        h_next_ = kFallbackFraction * h_scale_;
        mark_discontinuity();
      } else {
        estimator_->accept(t_, x_);
      }
      return outcome;
    }
    if (event) {
      // Switches whose control crossed flip at the located instant; so do kink pairs (their
      // guard is zero there in either mode), so that the restart starts in their next segment.
      const std::vector<char> minus = mode_;
      const bool switched = flip_switches(loc.pairs);
      ++stats_.located_events;
      if (kink_pairs(loc.pairs)) {
        ++stats_.located_kinks;
        for (int j : loc.pairs) mode_[static_cast<size_t>(j)] = !mode_[static_cast<size_t>(j)];
      }
      if (switched) note_switch_flip(minus);
    }
    const bool truncated = event || breakpoint || h_eff < h * (1 - 1e-9);
    double proposal = ErrorEstimator::propose(h_eff, err, theta);
    if (truncated) proposal = std::max(proposal, std::min(h, 2 * proposal));
    h_next_ = ErrorEstimator::ladder_floor(std::min(proposal, h_max));
    if (output_cut && !event && h_eff < kSliver * h) {
      // A sliver cut on an output time (an instant located 1.6e-19 s before a TSTEP point) is
      // not the phase's first step: taken as one, it set the next step and the first step after
      // this instant and every later one (2·h_after_event_ below), which then doubled up from
      // the floor (1344 steps instead of 421 on a 50 ps clamp, some at 8e-19 s, above RELTOL
      // there). The step planned for the phase comes next, as if the instant had been located
      // after the output time.
      h_next_ = std::max(h_next_, ErrorEstimator::ladder_floor(std::min(h, h_max)));
    } else {
      if (since_event_ == 1) h_after_event_ = h_eff;
      ++since_event_;
    }
    if (!event && !breakpoint && mode_ == before && !restart_.active())
      h_scale_ = std::max(h_next_, h_eff);
    if (event || breakpoint) {
      mark_discontinuity();
      if (event) {
        since_event_ = 1;
        h_next_ = std::min(h_next_, ErrorEstimator::ladder_floor(2 * h_after_event_));
        zeno_event(t_);
      }
    } else if (damp) {
      // The trapezoidal rule's (−1)^k mode (|R(∞)| = 1: an algebraic unknown of an index-2
      // loop closed by a switching pair, started off its hidden constraint) is what no step
      // size resolves: backward-Euler steps (R(∞) = 0) damp it, and the history restarts from
      // the BDF2 derivative of their points.
      restart_.extend(options_.restart_steps);
      estimator_->restart(t_, x_);
    } else if (kink_step_ && err >= 0) {
      // A kink inside the step (theta_stepper.hpp, "Kinks"): a new phase of the estimate from
      // here, and no longer step until it has its own.
      estimator_->restart(t_, x_);
      h_next_ = std::min(h_next_, ErrorEstimator::ladder_floor(h_eff * (1 + 1e-9)));
    } else {
      estimator_->accept(t_, x_);
    }
    return outcome;
  }
}

}  // namespace nsspice::solvers
