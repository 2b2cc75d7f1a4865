#pragma once
// The θ-stepper's restart state (docs/theory.md §5.2, §11): after a discontinuity the scheme
// takes backward-Euler steps (R(∞) = 0: no (−1)^k mode of the trapezoidal rule is excited by an
// algebraic unknown that jumps) before it returns to θ, and its history y = q' is reset from the
// BDF2 derivative y = (3q_k − 4q_{k−1} + q_{k−2})/(2h) of the points after the discontinuity
// (O(h²), where a backward-Euler derivative would leave an O(h) ringing in the trapezoidal rule).
//
// A small value type: the rules of when to restart, with no numerics of their own. The stepper
// asks theta() for each step, calls step_taken() for each accepted step and history_due() once
// per accepted step after it; the events below start or extend a restart.
#include <algorithm>

namespace nsspice::solvers {

struct RestartState {
  int left = 0;          // backward-Euler steps still to take
  int since_break = 0;   // accepted steps since the start or the last breakpoint
  int bdf2_pending = 0;  // accepted steps until the history is reset from BDF2 (0: none)

  bool active() const { return left > 0; }
  // The θ of the next step: 1 while restarting.
  double theta(double scheme_theta) const { return left > 0 ? 1.0 : scheme_theta; }
  // The first step after the start or after a breakpoint (impulses are detected there).
  bool first_after_break() const { return since_break == 1; }

  // t0: `steps` restart steps; the history is reset after them.
  void start(int steps) {
    left = steps;
    since_break = 0;
    bdf2_pending = steps;
  }
  // A source breakpoint at the end of the accepted step (before its history_due()).
  void breakpoint(int steps) {
    left = steps;
    since_break = 0;
    bdf2_pending = steps + 1;
  }
  // A discontinuity at the current point (a located switching instant, adaptive steps): at least
  // `steps` restart steps, a new phase for the impulse test.
  void discontinuity(int steps) {
    left = std::max(left, steps);
    since_break = 0;
    bdf2_pending = steps + 1;
  }
  // Trapezoidal ringing (adaptive steps) or a jump of y at a switch (the accepted step, before
  // its history_due()): at least `steps` more restart steps, the history after them.
  void extend(int steps) {
    left = std::max(left, steps);
    bdf2_pending = steps + 1;
  }
  // A switch flipped at the start of a fixed step: the whole step is a restart step, and the
  // history is not reset from BDF2 (the flip is at the grid point itself).
  void flip_at_step_start(int steps) {
    left = std::max(left, steps);
    bdf2_pending = 0;
  }
  // An accumulation (chattering, sliding) is crossed by backward-Euler steps only.
  void in_accumulation() { left = std::max(left, 1); }

  // An accepted step: true when it was a restart step.
  bool step_taken() {
    ++since_break;
    if (left == 0) return false;
    --left;
    return true;
  }
  // Once per accepted step, after step_taken() and the events: true when the history is to be
  // reset from BDF2 now.
  bool history_due() { return bdf2_pending > 0 && --bdf2_pending == 0; }
};

}  // namespace nsspice::solvers
