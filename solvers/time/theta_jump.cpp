// The state jump at an instant where ideal switches flip, for the θ-stepper (theta_stepper.hpp,
// "State jumps at switch flips"; SwitchJump; docs/theory.md §5.7; symbols of
// docs/formulation.md).
//
// At the instant t the stepper holds x⁻, the end of the step solved in the old mode. The jump is
// the limit δ → 0 of the backward-Euler step of length δ from E x⁻ in the new switch states (the
// event-driven mode's mode selection, event_driven.hpp):
//
//   (G + E/δ) x(δ) − B λ = b(t + δ) + E x⁻/δ,   0 ≤ C x(δ) + D λ + d ⊥ λ ≥ 0,
//
// x(δ) = x⁺ + δ x'⁺ + O(δ²) in the mode σ⁺ the MLCP answers, so that the step of δ/2 in σ⁺ gives
// x⁺ = 2 x(δ/2) − x(δ) + O(δ²): the jump without the vanishing step's own motion δ x'⁺, which for
// a current that the opening switch hands over to a diode near its zero crossing is as large as
// the current itself. δ = 1e-9 (t_stop − t_start), the event-driven mode's select_step.
//
// The step of the scheme from t then starts from x⁻ as before (its first backward-Euler substep
// makes the jump, theory.md §5.5): the jump is solved for what it is, not used by the scheme.
#include <algorithm>

#include "solvers/time/theta_stepper.hpp"

namespace nsspice::solvers {
namespace {

constexpr double kJumpStep = 1e-9;  // δ / (t_stop − t_start)

bool ok(const MlcpOutcome& o) {
  return o.status == LcpStatus::kSolved || o.status == LcpStatus::kInaccurate;
}

}  // namespace

void ThetaStepper::note_switch_flip(const std::vector<char>& mode_minus) {
  if (!options_.record_jumps) return;
  // Flips at the same instant (the rounds of a fixed step's start, a located instant and a
  // switch at its edge in the next try) are one jump from the first x⁻.
  if (pending_jump_ && pending_jump_->t == t_) return;
  pending_jump_ = SwitchJump{};
  pending_jump_->t = t_;
  pending_jump_->x_minus = x_;
  pending_jump_->mode_minus = mode_minus;
}

void ThetaStepper::finish_switch_jump(const std::vector<char>& mode) {
  if (!pending_jump_) return;
  SwitchJump jump = std::move(*pending_jump_);
  pending_jump_.reset();
  const double delta = kJumpStep * (options_.t_stop - options_.t_start);
  const Eigen::VectorXd& x_minus = jump.x_minus;
  // Each step solved for its increment Δx = x(δ) − x⁻ (as the event-driven mode's selection
  // does, so that the LCP's tolerances scale with the motion, not with x):
  //   (G + E/δ) Δx − B λ = b(t + δ) − G x⁻,   w = C Δx + D λ + (C x⁻ + d).
  const Eigen::VectorXd g_x = mlcs_.G * x_minus;
  const Eigen::VectorXd offsets = mlcs_.C * x_minus + mlcs_.d;
  Eigen::VectorXd s, b, dx_delta, dx_half, lambda, w;
  jump_solve_ = true;
  // Δx(δ): the MLCP, from the mode of the step that follows (its switch states are the new ones);
  // if that fails, the same step for x(δ) itself (rounding measured against x).
  jump.mode_plus = mode;
  mlcs_.eval_b(jump.t + delta, s, b);
  ModeMlcp& full = solver_for(delta);
  bool solved = ok(full.solve(b - g_x, offsets, jump.mode_plus, dx_delta, lambda, w));
  if (!solved) {
    jump.mode_plus = mode;
    solved =
        ok(full.solve(b + mlcs_.E * x_minus / delta, mlcs_.d, jump.mode_plus, dx_delta, lambda, w));
    if (solved) dx_delta -= x_minus;
  }
  // Δx(δ/2) in the mode the first step found.
  bool halved = false;
  if (solved) {
    mlcs_.eval_b(jump.t + 0.5 * delta, s, b);
    halved =
        solver_for(0.5 * delta).solve_in_mode(b - g_x, offsets, jump.mode_plus, dx_half, lambda, w);
  }
  jump_solve_ = false;
  ++stats_.switch_jumps;
  stats_.jump_solves += 1 + (solved ? 1 : 0);
  if (halved) {
    jump.x_plus = x_minus + (2.0 * dx_half - dx_delta);
  } else if (solved) {
    jump.x_plus = x_minus + dx_delta;
  } else {
    jump.x_plus = x_new_;
    jump.mode_plus = mode;
    jump.from_step = true;
  }
  jumps_.push_back(std::move(jump));
}

}  // namespace nsspice::solvers
