// The event-driven mode (docs/event-driven.md) at the edges of its time axis and of its mode
// selection: PULSE sources whose corners fall on a conducting diode, a breakpoint a rounding
// error below the stop time, and the agreement with the θ-scheme on such decks.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "helpers.hpp"

namespace nsspice::testing {
namespace {

// A diode charging a capacitor from a PULSE of period `per` (seconds, written in µs as a user
// would) up to `tstop` µs; TSTEP 1n.
std::string pulse_charger(const std::string& per_us, const std::string& tstop_us) {
  const double per = std::stod(per_us) * 1e-6;
  return fmt::format(
      "pulse charger\nV1 in 0 PULSE(0 5 0 1n 1n {} {}u)\nR1 in a 1k\nD1 a out DI\nC1 out 0 1n\n"
      "R2 out 0 10k\n.model DI D\n.tran 1n {}u\n.end\n",
      0.4 * per, per_us, tstop_us);
}

circuit::TransientOptions event_mode() {
  circuit::TransientOptions ev;
  ev.method = circuit::TranMethod::kEvent;
  return ev;
}

// At the end of each rise (a breakpoint) the diode conducts: the mode selection there solves
// for increments of 10⁻⁸ V over δ while the pair's offset C x + d rounds to 10⁻¹⁶ V, which
// failed the complementarity check ("no consistent mode after the event" at t = 1 ns or at a
// later corner). Periods and stop times as users write them; the end value against the
// error-controlled θ-scheme (RELTOL 10⁻³) within 0.2 %.
TEST(EventEdges, PulseCornersOnAConductingDiode) {
  for (const auto& [per, tstop] : {std::pair{"0.11", "3.3"},
                                   {"0.13", "0.39"},
                                   {"0.03", "0.21"},
                                   {"0.19", "1.9"},
                                   {"0.11", "3.63"}}) {
    const std::string text = pulse_charger(per, tstop);
    const Waveforms e = simulate(text, event_mode());
    ASSERT_TRUE(e.result.ok()) << per << " " << tstop << ": " << e.result.summary.message;
    const Waveforms t = simulate(text);
    ASSERT_TRUE(t.result.ok()) << t.result.summary.message;
    EXPECT_DOUBLE_EQ(e.t.back(), t.t.back()) << per << " " << tstop;
    const double v_theta = t.series("v(out)").back();
    EXPECT_NEAR(e.series("v(out)").back(), v_theta, 2e-3 * v_theta) << per << " " << tstop;
  }
}

// TSTOP = 100 periods of 0.3 µs: the last rise starts at 100 · 0.3e-6 = 2.9999999999999997e-5,
// a rounding error below TSTOP = 3.0000000000000001e-5. The run took a last step of 3e-21 s
// there (an inductor's L/h of 10¹⁶ beside conductances of 0.01 S: a stage matrix at the
// singularity threshold). The end is reached without it: no two points closer than rounding.
TEST(EventEdges, BreakpointARoundingErrorBelowTheStopTime) {
  const std::string text =
      "pulse rl\nV1 in 0 PULSE(0 5 0 1n 1n 0.12u 0.3u)\nR1 in a 10\nL1 a b 10u\nD1 b out DI\n"
      "C1 out 0 100n\nR2 out 0 100\n.model DI D\n.tran 1n 30u\n.end\n";
  ASSERT_LT(100 * 0.3e-6, 30e-6) << "the case: the breakpoint is below the stop time";
  const Waveforms e = simulate(text, event_mode());
  ASSERT_TRUE(e.result.ok()) << e.result.summary.message;
  ASSERT_GE(e.t.size(), 2u);
  EXPECT_EQ(e.t.back(), 30e-6);
  for (size_t k = 1; k < e.t.size(); ++k)
    ASSERT_GT(e.t[k] - e.t[k - 1], 1e-13 * 30e-6) << "points " << k - 1 << ", " << k;
  const Waveforms t = simulate(text);
  ASSERT_TRUE(t.result.ok()) << t.result.summary.message;
  const double v_theta = t.series("v(out)").back();
  EXPECT_NEAR(e.series("v(out)").back(), v_theta, 2e-3 * std::abs(v_theta));
}

// examples/analyses/pss_resonant.cir over its first 100 µs: at each commutation of the bridge
// only D2 conducts for ~0.1 ns (the tank current through Rn = 1 MΩ, L/Rn = 100 ps, until D3
// takes over), and the Radau stage matrix at the steps that resolve it (E/h ≈ 10⁷ S beside
// 1/Rn = 10⁻⁶ S) is below the factorization's rcond threshold: the run stopped at 5.2 µs ("the
// mode's DAE is singular"; at 36.5 µs over 1 ms). Those instants go to the error-controlled
// θ-scheme (reported); the end state agrees with the θ-scheme at RELTOL 10⁻⁶ within 2·10⁻⁴.
TEST(EventEdges, ResonantConverterThroughAStiffCommutation) {
  std::string text = read_example("analyses/pss_resonant.cir");
  const auto at = text.find(".tran 10n 1m");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 12, ".tran 10n 100u");
  const Waveforms e = simulate(text, event_mode());
  ASSERT_TRUE(e.result.ok()) << e.result.summary.message;
  const auto& fallbacks = e.result.event_stats.fallbacks;
  ASSERT_FALSE(fallbacks.empty());
  EXPECT_GT(fallbacks.front().singular_h, 0) << "reported as a singular stage matrix";
  text.replace(at, 14, ".options reltol=1e-6\n.tran 10n 100u");
  const Waveforms t = simulate(text);
  ASSERT_TRUE(t.result.ok()) << t.result.summary.message;
  for (const char* signal : {"v(n)", "v(b)", "i(lr)"}) {
    const double ref = t.series(signal).back();
    EXPECT_NEAR(e.series(signal).back(), ref, 2e-4 * std::abs(ref)) << signal;
  }
}

// A relay without hysteresis slides from 0.5 ms on (Zeno: the θ-scheme takes over) while a
// separate RC low-pass follows a 10 kHz sine. With TSTEP = 100 µs (one period of the sine) the
// θ-scheme intervals took steps of TSTEP and ended the RC at −0.249 V; their steps are now the
// sine's time scale, and v(o) is the closed form
//   v(t) = A/(1 + (ωτ)²) · (sin ωt − ωτ cos ωt + ωτ e^{−t/τ}),   τ = RC = 10 µs,
// within 2 mV (0.25 % of its amplitude), v(c) the relay threshold within 1 mV.
TEST(EventEdges, ZenoFallbackStepsResolveTheSources) {
  const Waveforms r = simulate(
      "relay and rc\nI1 0 c DC 1m\nC1 c 0 1u\nS1 c 0 c 0 SREL\n"
      ".model SREL SW(VT=0.5 VH=0 RON=100)\nV2 s 0 SIN(0 1 10k)\nR2 s o 1k\nC2 o 0 10n\n"
      ".options method=event\n.tran 100u 2m UIC\n.end\n");
  ASSERT_TRUE(r.result.ok()) << r.result.summary.message;
  ASSERT_FALSE(r.result.event_stats.fallbacks.empty()) << "the case: a Zeno interval";
  const double w = 2 * std::numbers::pi * 1e4, tau = 1e-5, wt = w * tau;
  auto closed_form = [&](double t) {
    return (std::sin(w * t) - wt * std::cos(w * t) + wt * std::exp(-t / tau)) / (1 + wt * wt);
  };
  const auto v = r.series("v(o)");
  double worst = 0;
  for (size_t k = 0; k < r.t.size(); ++k)
    if (r.t[k] > 0.5e-3) worst = std::max(worst, std::abs(v[k] - closed_form(r.t[k])));
  EXPECT_LT(worst, 2e-3);
  EXPECT_NEAR(r.series("v(c)").back(), 0.5, 1e-3);
}

// The four-stage multiplier of issue 15 (100 MHz, 10 pF, ideal diodes) over 100 periods with
// TSTEP = 100 ns (10 periods): the event mode locates every switching (no Zeno interval, in
// particular none from the events at t ≈ 0) and its output agrees with the error-controlled
// θ-scheme within 0.5 %. (Over 20 000 periods, .tran 1u 200u, both give 5.0611 V; too long
// for a unit test.)
TEST(EventEdges, MultiplierAt100MHzWithoutSpuriousZeno) {
  const std::string text =
      "cw\nV1 in 0 SIN(0 1 100meg)\nC1 in n1 10p\nD1 0 n1 DI\nC2 0 n2 10p\nD2 n1 n2 DI\n"
      "C3 n1 n3 10p\nD3 n2 n3 DI\nC4 n2 n4 10p\nD4 n3 n4 DI\nC5 n3 n5 10p\nD5 n4 n5 DI\n"
      "C6 n4 n6 10p\nD6 n5 n6 DI\nC7 n5 n7 10p\nD7 n6 n7 DI\nC8 n6 n8 10p\nD8 n7 n8 DI\n"
      "RL n8 0 100k\n.model DI D\n.tran 0.1u 1u\n.end\n";
  const Waveforms e = simulate(text, event_mode());
  ASSERT_TRUE(e.result.ok()) << e.result.summary.message;
  EXPECT_TRUE(e.result.event_stats.fallbacks.empty())
      << "first at t = " << e.result.event_stats.fallbacks.front().t_begin;
  EXPECT_GT(e.result.event_stats.events, 1000);
  const Waveforms t = simulate(text);
  ASSERT_TRUE(t.result.ok()) << t.result.summary.message;
  const double v_theta = t.series("v(n8)").back();
  EXPECT_NEAR(e.series("v(n8)").back(), v_theta, 5e-3 * v_theta);
}

}  // namespace
}  // namespace nsspice::testing
