// The θ-stepper's restart rules (solvers/time/restart_state.hpp): which steps are backward-Euler
// restart steps and at which accepted step the history is reset from BDF2, after each kind of
// discontinuity. An accepted step is step_taken() then the events found at its end, then
// history_due(), in the stepper's order.
#include "solvers/time/restart_state.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace nsspice::solvers {
namespace {

struct Trace {
  std::vector<double> theta;  // the θ each step was taken with
  std::vector<int> history;   // the steps (1-based) at which the history was reset
};

// n accepted steps of a scheme with θ = ½; `events(k, r)` applies the events at step k's end.
template <class Events>
Trace run(RestartState& r, int n, Events events) {
  Trace out;
  for (int k = 1; k <= n; ++k) {
    out.theta.push_back(r.theta(0.5));
    r.step_taken();
    events(k, r);
    if (r.history_due()) out.history.push_back(k);
  }
  return out;
}

TEST(RestartState, StartTakesTheRestartStepsThenResetsTheHistoryAtTheLastOne) {
  RestartState r;
  r.start(2);
  const Trace t = run(r, 5, [](int, RestartState&) {});
  EXPECT_EQ(t.theta, (std::vector<double>{1, 1, 0.5, 0.5, 0.5}));
  // BDF2 over the three points t0, t1, t2: due at the second step's end.
  EXPECT_EQ(t.history, std::vector<int>{2});
  EXPECT_FALSE(r.active());
}

TEST(RestartState, BreakpointRestartsAfterTheStepThatEndsOnIt) {
  RestartState r;
  r.start(2);
  const Trace t = run(r, 8, [](int k, RestartState& s) {
    if (k == 4) s.breakpoint(2);
  });
  EXPECT_EQ(t.theta, (std::vector<double>{1, 1, 0.5, 0.5, 1, 1, 0.5, 0.5}));
  // The points after the breakpoint: t4 (on it), t5, t6 → due at step 6.
  EXPECT_EQ(t.history, (std::vector<int>{2, 6}));
}

TEST(RestartState, FirstStepAfterABreakIsKnownForTheImpulseTest) {
  RestartState r;
  r.start(2);
  r.step_taken();
  EXPECT_TRUE(r.first_after_break());
  r.step_taken();
  EXPECT_FALSE(r.first_after_break());
  r.breakpoint(2);
  r.step_taken();
  EXPECT_TRUE(r.first_after_break());
  r.discontinuity(2);
  EXPECT_EQ(r.since_break, 0);
}

TEST(RestartState, ExtendNeverShortensARestartInProgress) {
  RestartState r;
  r.start(5);
  r.step_taken();
  r.extend(2);  // 4 left: stays 4
  EXPECT_EQ(r.left, 4);
  r.discontinuity(2);
  EXPECT_EQ(r.left, 4);
  r.flip_at_step_start(1);
  EXPECT_EQ(r.left, 4);
  EXPECT_EQ(r.bdf2_pending, 0) << "a flip at the step's start does not reset the history";
}

TEST(RestartState, JumpOfYAtASwitchTakesTwoMoreStepsAndResetsAfterThem) {
  RestartState r;
  r.start(2);
  const Trace t = run(r, 7, [](int k, RestartState& s) {
    if (k == 3) s.extend(2);
  });
  EXPECT_EQ(t.theta, (std::vector<double>{1, 1, 0.5, 1, 1, 0.5, 0.5}));
  EXPECT_EQ(t.history, (std::vector<int>{2, 5}));
}

TEST(RestartState, AccumulationStepsAreBackwardEuler) {
  RestartState r;
  EXPECT_EQ(r.theta(0.5), 0.5);
  r.in_accumulation();
  EXPECT_EQ(r.theta(0.5), 1.0);
  EXPECT_TRUE(r.step_taken()) << "a restart step";
  EXPECT_FALSE(r.step_taken());
  EXPECT_EQ(r.theta(0.5), 0.5);
  EXPECT_EQ(r.theta(1.0), 1.0);
}

}  // namespace
}  // namespace nsspice::solvers
