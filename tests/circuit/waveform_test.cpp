// Source waveforms: values and breakpoints against hand-computed SPICE semantics.
#include "circuit/waveform.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>

namespace nsspice::circuit {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(Waveform, DcIsConstantWithoutBreakpoints) {
  const Waveform w = Dc{3.5};
  EXPECT_DOUBLE_EQ(waveform_value(w, 0.0), 3.5);
  EXPECT_DOUBLE_EQ(waveform_value(w, 1e3), 3.5);
  EXPECT_EQ(waveform_next_breakpoint(w, 0.0), kInf);
}

TEST(Waveform, SinWithDelayAndDamping) {
  const Waveform w = Sin{1.0, 2.0, 50.0, 0.01, 10.0, 30.0};
  EXPECT_DOUBLE_EQ(waveform_value(w, 0.005), 1.0 + 2.0 * std::sin(std::numbers::pi / 6));
  const double t = 0.013;
  const double expected =
      1.0 + 2.0 * std::exp(-10.0 * 0.003) *
                std::sin(2 * std::numbers::pi * 50.0 * 0.003 + std::numbers::pi / 6);
  EXPECT_NEAR(waveform_value(w, t), expected, 1e-14);
  EXPECT_DOUBLE_EQ(waveform_next_breakpoint(w, 0.0), 0.01);
  EXPECT_EQ(waveform_next_breakpoint(w, 0.01), kInf);
}

TEST(Waveform, PulseShapeAndPeriodicCorners) {
  // v1=0 v2=5 td=1 tr=1 tf=2 pw=3 per=10
  const Waveform w = Pulse{0.0, 5.0, 1.0, 1.0, 2.0, 3.0, 10.0};
  EXPECT_DOUBLE_EQ(waveform_value(w, 0.5), 0.0);
  EXPECT_DOUBLE_EQ(waveform_value(w, 1.5), 2.5);
  EXPECT_DOUBLE_EQ(waveform_value(w, 3.0), 5.0);
  EXPECT_DOUBLE_EQ(waveform_value(w, 6.0), 2.5);
  EXPECT_DOUBLE_EQ(waveform_value(w, 8.0), 0.0);
  EXPECT_DOUBLE_EQ(waveform_value(w, 12.0), 5.0);  // second period: 11 + 1 rise
  const double corners[] = {1.0, 2.0, 5.0, 7.0, 11.0, 12.0, 15.0, 17.0, 21.0};
  double t = 0.0;
  for (double c : corners) {
    t = waveform_next_breakpoint(w, t);
    EXPECT_DOUBLE_EQ(t, c);
  }
}

// NP (ngspice) / Ncycles (LTspice): three pulses, then v1 for good, and no breakpoint after
// the third period's end (checked against ngspice-39: avg 0.1575 over 400 µs).
TEST(Waveform, PulseCountEndsTheTrain) {
  Pulse p{0.0, 1.0, 10e-6, 1e-6, 1e-6, 20e-6, 50e-6};
  p.np = 3;
  const Waveform w = p;
  EXPECT_DOUBLE_EQ(waveform_value(w, 10e-6 + 2 * 50e-6 + 5e-6), 1.0);  // inside the third
  EXPECT_DOUBLE_EQ(waveform_value(w, 10e-6 + 3 * 50e-6 + 5e-6), 0.0);  // no fourth
  EXPECT_DOUBLE_EQ(waveform_value(w, 1.0), 0.0);
  double t = 10e-6 + 2 * 50e-6 + 22e-6;  // after the third pulse's fall
  t = waveform_next_breakpoint(w, t);
  EXPECT_DOUBLE_EQ(t, 10e-6 + 3 * 50e-6);  // the third period's end
  EXPECT_EQ(waveform_next_breakpoint(w, t), kInf);
}

TEST(Waveform, PwlInterpolatesAndHoldsEnds) {
  const Waveform w = Pwl{{1.0, 2.0, 4.0}, {0.0, 10.0, -2.0}};
  EXPECT_DOUBLE_EQ(waveform_value(w, 0.0), 0.0);
  EXPECT_DOUBLE_EQ(waveform_value(w, 1.5), 5.0);
  EXPECT_DOUBLE_EQ(waveform_value(w, 3.0), 4.0);
  EXPECT_DOUBLE_EQ(waveform_value(w, 9.0), -2.0);
  EXPECT_DOUBLE_EQ(waveform_next_breakpoint(w, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(waveform_next_breakpoint(w, 1.0), 2.0);
  EXPECT_DOUBLE_EQ(waveform_next_breakpoint(w, 3.0), 4.0);
  EXPECT_EQ(waveform_next_breakpoint(w, 4.0), kInf);
}

// LTspice's REPEAT FOR 2 (1 0 2 10 4 0) ENDREPEAT: [1, 4] played twice (the second play over
// [4, 7]), then the last value; the breakpoints follow the plays and end with them.
TEST(Waveform, PwlCountedRepeatPlaysThatManyTimes) {
  Pwl p{{1.0, 2.0, 4.0}, {0.0, 10.0, 0.0}};
  p.repeat = 1.0;
  p.repeat_count = 2;
  const Waveform w = p;
  EXPECT_DOUBLE_EQ(waveform_value(w, 1.5), 5.0);
  EXPECT_DOUBLE_EQ(waveform_value(w, 4.5), 5.0);  // second play: 4.5 ↦ 1.5
  EXPECT_DOUBLE_EQ(waveform_value(w, 6.0), 5.0);  // 6 ↦ 3, half way down
  EXPECT_DOUBLE_EQ(waveform_value(w, 7.5), 0.0);  // after two plays: the last value
  EXPECT_DOUBLE_EQ(waveform_value(w, 8.5), 0.0);  // no third play (it would be 10 at 8)
  EXPECT_DOUBLE_EQ(waveform_next_breakpoint(w, 4.0), 5.0);
  EXPECT_DOUBLE_EQ(waveform_next_breakpoint(w, 5.0), 7.0);
  EXPECT_EQ(waveform_next_breakpoint(w, 7.0), kInf);
  p.repeat_count = 0;  // forever
  EXPECT_DOUBLE_EQ(waveform_value(Waveform{p}, 8.0), 10.0);
}

}  // namespace
}  // namespace nsspice::circuit
