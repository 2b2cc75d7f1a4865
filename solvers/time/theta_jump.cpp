// The state jump at an instant where ideal switches open, for the θ-stepper (theta_stepper.hpp,
// "State jumps at switch openings"; SwitchJump; docs/theory.md §5.7; symbols of
// docs/formulation.md).
//
// At the instant t the stepper holds x⁻, the end of the step solved in the old mode. The jump is
// taken by two backward-Euler steps of a vanishing length δ in the new switch states, as the
// event-driven mode's mode selection takes it (event_driven.hpp):
//
//   (G + E/δ) x₁ − B λ₁ = b(t + δ) + E x⁻/δ,   (G + E/δ) x₂ − B λ₂ = b(t + 2δ) + E x₁/δ,
//   0 ≤ C x_k + D λ_k + d ⊥ λ_k ≥ 0,
//
// the first an MLCP (its answer σ⁺ is the mode after the instant), the second in σ⁺ (the same
// factor). x₁ = x⁺ + δ v + O(δ²) and x₂ = x₁ + δ x'⁺ + O(δ²); where some mode of the new switch
// states holds E x⁻ (a diode takes the current), v = x'⁺ and
//
//   x⁺ = 2 x₁ − x₂
//
// holds E x⁺ = E x⁻ to O(δ²): without the vanishing steps' own motion δ x'⁺, which for a current
// that the opening switch hands over to a diode within δ|i'|/|i| of its zero crossing would be a
// change of more than half of it. Where the state must jump (an inductor current cut), x⁺ is the
// jump's end to O(δ) against a jump of O(1). δ = 1e-9 (t_stop − t_start), the event-driven
// mode's select_step.
//
// The step of the scheme from t then starts from x⁻ as before (its first backward-Euler substep
// makes the jump, theory.md §5.5): the jump is solved to be reported, not used by the scheme.
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
  // Only an opening can leave a current without its path (a closing's jumps, a capacitor
  // switched onto a source, are the impulsive steps of theory.md §5.5).
  bool opened = false;
  for (size_t k = 0; k < mlcs_.switches.size() && !opened; ++k)
    opened = !switch_on_[k] && mode_minus[static_cast<size_t>(mlcs_.switches[k].pair)];
  if (!opened) return;
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
  ModeMlcp& solver = solver_for(delta);
  // Each step solved for its increment Δx from its start x_s (as the event-driven mode's
  // selection does, so that the LCP's tolerances scale with the motion, not with x):
  //   (G + E/δ) Δx − B λ = b(t_s + δ) − G x_s,   w = C Δx + D λ + (C x_s + d).
  Eigen::VectorXd s, b, x1, dx1, dx2, lambda, w;
  jump_solve_ = true;
  // x₁ = x(δ) from x⁻: the MLCP, from the mode of the step that follows (its switch states are
  // the new ones); if that fails, the same step for x₁ itself (rounding measured against x).
  jump.mode_plus = mode;
  mlcs_.eval_b(jump.t + delta, s, b);
  const Eigen::VectorXd& x0 = jump.x_minus;
  bool solved =
      ok(solver.solve(b - mlcs_.G * x0, mlcs_.C * x0 + mlcs_.d, jump.mode_plus, dx1, lambda, w));
  if (!solved) {
    jump.mode_plus = mode;
    solved = ok(solver.solve(b + mlcs_.E * x0 / delta, mlcs_.d, jump.mode_plus, dx1, lambda, w));
    if (solved) dx1 -= x0;
  }
  // x₂ = x(2δ) from x₁ in the mode the first step found (the same factor).
  bool second = false;
  if (solved) {
    x1 = x0 + dx1;
    mlcs_.eval_b(jump.t + 2 * delta, s, b);
    second = solver.solve_in_mode(b - mlcs_.G * x1, mlcs_.C * x1 + mlcs_.d, jump.mode_plus, dx2,
                                  lambda, w);
  }
  jump_solve_ = false;
  ++stats_.switch_jumps;
  stats_.jump_solves += 1 + (solved ? 1 : 0);
  if (second) {
    jump.x_plus = x1 - dx2;  // 2 x₁ − x₂
  } else if (solved) {
    jump.x_plus = std::move(x1);
  } else {
    jump.x_plus = x_new_;
    jump.mode_plus = mode;
    jump.from_step = true;
  }
  jumps_.push_back(std::move(jump));
}

}  // namespace nsspice::solvers
