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
// Screening first (no factorization of its own): three backward-Euler steps of h, the size of the
// accepted step's substeps (or θh), from x⁻ in σ⁺, on the factors that step already made. In q =
// E x, 2 q₁ − q₂ − q₀ = −h² q'' + O(h³) and q₃ − 2 q₂ + q₁ = h² q'' + O(h³) when nothing jumps,
// while a jump J adds J to the first and nothing to the second; so when every row has
//
//   |2 q₁ − q₂ − q₀| ≤ 4 |q₃ − 2 q₂ + q₁| + 1e-12 max(|q₀|, |q₁|, |q₂|)
//
// E x moves smoothly after t: no state jump (x⁺ = x⁻ is reported). Otherwise (a jump, or motion
// too fast for h: a time constant below it) the vanishing steps above decide.
//
// The step of the scheme from t then starts from x⁻ as before (its first backward-Euler substep
// makes the jump, theory.md §5.5): the jump is solved to be reported, not used by the scheme.
#include <algorithm>

#include "solvers/time/theta_stepper.hpp"

namespace nsspice::solvers {
namespace {

constexpr double kJumpStep = 1e-9;  // δ / (t_stop − t_start)
// The screening's extrapolation is smooth motion while within this factor of the second
// difference (both h² q'' to leading order), plus this share of q (rounding).
constexpr double kCurvatureFactor = 4.0;
constexpr double kJumpRounding = 1e-12;

}  // namespace

void ThetaStepper::note_switch_flip(const std::vector<char>& mode_minus) {
  if (!options_.record_jumps) return;
  // Flips at the same instant (the rounds of a fixed step's start, a located instant and a
  // switch at its edge in the next try) are one jump from the first x⁻.
  if (pending_jump_ && pending_jump_->t == t_) {
    pending_jump_->mode_plus = mode_;
    return;
  }
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
  // The first guess of the mode after the instant, as the step from it takes it (the new switch
  // states, the other pairs as before): the same pivoting, the same cached factors.
  pending_jump_->mode_plus = mode_;
}

int ThetaStepper::jump_steps(double t, const Eigen::VectorXd& x0, double h, int count,
                             std::vector<char>& mode, Eigen::VectorXd* x) {
  // Each step solved for its increment Δx from its start x_s (as the event-driven mode's
  // selection does, so that the LCP's tolerances scale with the motion, not with x):
  //   (G + E/h) Δx − B λ = b(t_s + h) − G x_s,   w = C Δx + D λ + (C x_s + d).
  ModeMlcp& solver = solver_for(h);
  const double h_used = solver_theta_h_;
  Eigen::VectorXd s, b, dx, lambda, w;
  const std::vector<char> guess = mode;
  for (int k = 0; k < count; ++k) {
    const Eigen::VectorXd& from = k == 0 ? x0 : x[k - 1];
    mlcs_.eval_b(t + (k + 1) * h, s, b);
    bool solved = false;
    ++stats_.jump_solves;
    if (k > 0) {
      solved =
          solver.solve_in_mode(b - mlcs_.G * from, mlcs_.C * from + mlcs_.d, mode, dx, lambda, w);
    } else {
      // The MLCP, from the mode of the step that follows (its switch states are the new ones);
      // if that fails, the same step for x₁ itself (rounding measured against x).
      solved = ok(solver.solve(b - mlcs_.G * from, mlcs_.C * from + mlcs_.d, mode, dx, lambda, w));
      if (!solved) {
        mode = guess;
        solved = ok(solver.solve(b + mlcs_.E * from / h_used, mlcs_.d, mode, dx, lambda, w));
        if (solved) dx -= from;
      }
    }
    if (!solved) return k;
    x[k] = from + dx;
  }
  return count;
}

bool ThetaStepper::smooth_after(const Eigen::VectorXd& x0, const Eigen::VectorXd* x) const {
  // q = E x at x⁻ and after 1, 2, 3 steps of h: the extrapolation 2 q₁ − q₂ − q₀ = −h² q'' + O(h³)
  // against the second difference q₃ − 2 q₂ + q₁ = h² q'' + O(h³), row by row.
  const Eigen::VectorXd q0 = mlcs_.E * x0, q1 = mlcs_.E * x[0], q2 = mlcs_.E * x[1],
                        q3 = mlcs_.E * x[2];
  for (Eigen::Index i = 0; i < q0.size(); ++i) {
    const double floor =
        kJumpRounding * std::max({std::abs(q0[i]), std::abs(q1[i]), std::abs(q2[i])});
    if (std::abs(2 * q1[i] - q2[i] - q0[i]) >
        kCurvatureFactor * std::abs(q3[i] - 2 * q2[i] + q1[i]) + floor)
      return false;
  }
  return true;
}

void ThetaStepper::finish_switch_jump(const std::vector<char>& mode, double h_step) {
  if (!pending_jump_) return;
  SwitchJump jump = std::move(*pending_jump_);
  pending_jump_.reset();
  const Eigen::VectorXd& x0 = jump.x_minus;
  Eigen::VectorXd x[3];
  jump_solve_ = true;
  ++stats_.switch_jumps;
  // The screening: three steps of the accepted step's own size (their factors are the step's).
  const std::vector<char> guess = jump.mode_plus;
  if (h_step > 0 && jump_steps(jump.t, x0, h_step, 3, jump.mode_plus, x) == 3 &&
      smooth_after(x0, x)) {
    jump.x_plus = x0;
    jump.state_jump = false;
    jump_solve_ = false;
    jumps_.push_back(std::move(jump));
    return;
  }
  // The vanishing steps: x₁ = x(δ) by the MLCP, x₂ = x(2δ) in its mode (the same factor).
  ++stats_.vanishing_jumps;
  const double delta = kJumpStep * (options_.t_stop - options_.t_start);
  jump.mode_plus = guess;
  const int solved = jump_steps(jump.t, x0, delta, 2, jump.mode_plus, x);
  jump_solve_ = false;
  if (solved == 2) {
    jump.x_plus = 2.0 * x[0] - x[1];
  } else if (solved == 1) {
    jump.x_plus = std::move(x[0]);
  } else {
    jump.x_plus = x_new_;
    jump.mode_plus = mode;
    jump.from_step = true;
  }
  jumps_.push_back(std::move(jump));
}

}  // namespace nsspice::solvers
