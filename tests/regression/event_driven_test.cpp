// The event-driven mode (.options method=event, docs/event-driven.md) against analytic
// solutions: the AB08 §1.1 circuits (exact piecewise solutions by matrix exponentials,
// piecewise_reference.hpp), the Zener RLC of AB08 §1.2 (sliding entry and exit), the buck
// converter's periodic steady state in closed form, a Zeno-prone relay, a state jump, and
// agreement with the θ-scheme as h → 0.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <numbers>
#include <unsupported/Eigen/MatrixFunctions>

#include "checks.hpp"
#include "helpers.hpp"
#include "piecewise_reference.hpp"

namespace nsspice::testing {
namespace {

constexpr double kPi = std::numbers::pi;
const double kC = 1.0 / (4 * kPi * kPi);

std::string ab08(const std::string& body, double t_end, const std::string& options) {
  return fmt::format("AB08\n{}\n.model DI D\n.options method=event {}\n.tran 1m {} UIC\n.end\n",
                     body, options, t_end);
}

// Times of the logged events of `device` (all devices if empty), without the mode selected at
// the start (the initial mode guess corrected at t0, logged with cause "start").
std::vector<double> event_times(const Waveforms& r, const std::string& device = "") {
  std::vector<double> out;
  for (const auto& e : r.result.events)
    if ((device.empty() || e.device == device) && e.cause != "start") out.push_back(e.t);
  return out;
}

// Value of series v of r at time t (linear interpolation between output points).
double value_at(const Waveforms& r, const std::vector<double>& v, double t) {
  const auto it = std::lower_bound(r.t.begin(), r.t.end(), t);
  if (it == r.t.begin()) return v.front();
  if (it == r.t.end()) return v.back();
  const size_t k = static_cast<size_t>(it - r.t.begin());
  const double a = (t - r.t[k - 1]) / (r.t[k] - r.t[k - 1]);
  return v[k - 1] + a * (v[k] - v[k - 1]);
}

TEST(EventDriven, CircuitC_StopTimeAndFrozenVoltageToTightTolerance) {
  const double R = 0.1, v0 = 1.0, alpha = R / 2, wd = std::sqrt(1 / kC - alpha * alpha);
  const double t_stop = kPi / wd, v_final = -v0 * std::exp(-alpha * kPi / wd);
  const Waveforms r =
      simulate(ab08(fmt::format("C1 n1 0 {} IC=1\nR1 n1 n2 0.1\nL1 n2 n3 1 IC=0\nD1 n3 0 DI", kC),
                    1.5, "evrtol=1e-12"));
  ASSERT_TRUE(r.result.ok()) << r.result.summary.message;
  expect_complementarity(r);
  const auto times = event_times(r, "d1");
  ASSERT_EQ(times.size(), 1u) << "one stop, nothing else";
  EXPECT_EQ(r.result.events.back().transition, "on->off");
  EXPECT_NEAR(times.front(), t_stop, 1e-10 * t_stop);
  EXPECT_NEAR(r.series("v(n1)").back(), v_final, 1e-9 * std::abs(v_final));
  const auto i = r.series("i(l1)");
  for (size_t k = 0; k < r.t.size(); ++k) {
    if (r.t[k] > t_stop + 1e-6) {
      EXPECT_EQ(i[k], 0.0) << "t = " << r.t[k];
    }
  }
}

struct TwoMode {
  std::string name, body;
  std::vector<LtiMode> modes;
  int mode0;
  Eigen::Vector2d s0;
};

TwoMode circuit_a() {
  const double R = 10, v0 = 1 / kC;
  const LtiMode on{(Eigen::Matrix2d() << -1 / (R * kC), 1 / kC, -1, 0).finished(), {1 / R, -1}};
  const LtiMode off{(Eigen::Matrix2d() << 0, 0, 0, -R).finished(), {-1, R}};
  return {"AB08 (a)",
          fmt::format("C1 n1 0 {} IC={}\nR1 n1 n2 10\nL1 n2 n1 1 IC=-1\nD1 n2 0 DI", kC, v0),
          {off, on},
          1,
          {v0, -1.0}};
}

TwoMode circuit_b() {
  const double R = 10, v0 = 1 / kC;
  const LtiMode off{(Eigen::Matrix2d() << 0, -1 / kC, 1, 0).finished(), {1, 0}};
  const LtiMode on{(Eigen::Matrix2d() << -1 / (R * kC), -1 / kC, 1, 0).finished(), {-1 / R, 0}};
  return {"AB08 (b)",
          fmt::format("C1 n1 0 {} IC={}\nL1 n1 0 1 IC=0\nR1 n2 n1 10\nD1 0 n2 DI", kC, v0),
          {off, on},
          0,
          {v0, 0.0}};
}

void check_switching_instants(const TwoMode& c) {
  const double t_end = 3.0;
  const auto ref = integrate_piecewise(c.modes, c.mode0, c.s0, t_end);
  ASSERT_GE(ref.events.size(), 1u);
  const Waveforms r = simulate(ab08(c.body, t_end, "evrtol=1e-12"));
  ASSERT_TRUE(r.result.ok()) << r.result.summary.message;
  expect_complementarity(r);
  const auto times = event_times(r, "d1");
  ASSERT_EQ(times.size(), ref.events.size()) << c.name;
  for (size_t k = 0; k < times.size(); ++k)
    EXPECT_NEAR(times[k], ref.events[k], 1e-9) << c.name << " event " << k;
  const Eigen::Vector2d s = ref.at(t_end);
  EXPECT_NEAR(r.series("v(n1)").back(), s[0], 1e-8 * std::abs(c.s0[0])) << c.name;
  EXPECT_NEAR(r.series("i(l1)").back(), s[1], 1e-8) << c.name;
}

TEST(EventDriven, CircuitA_SwitchingInstantsMatchExactSolution) {
  check_switching_instants(circuit_a());
}

TEST(EventDriven, CircuitB_SwitchingInstantsMatchExactSolution) {
  check_switching_instants(circuit_b());
}

// With fixed steps h the error at a fixed time after several events falls like h^5 (Radau
// IIA's order), not like h (time stepping across events).
void check_order(const TwoMode& c, double t_end, std::vector<double> steps) {
  const auto ref = integrate_piecewise(c.modes, c.mode0, c.s0, t_end);
  ASSERT_GE(ref.events.size(), 1u) << c.name << ": events before the check";
  std::vector<double> errors;
  for (double h : steps) {
    circuit::TransientOptions o;
    o.h = h;
    o.event_fixed_step = true;
    const Waveforms r = simulate(ab08(c.body, t_end, ""), o);
    ASSERT_TRUE(r.result.ok()) << r.result.summary.message;
    const Eigen::Vector2d s = ref.at(t_end);
    errors.push_back(std::abs(r.series("v(n1)").back() - s[0]) / std::abs(c.s0[0]));
  }
  for (size_t k = 1; k < errors.size(); ++k) {
    const double order = std::log(errors[k - 1] / errors[k]) / std::log(steps[k - 1] / steps[k]);
    EXPECT_GT(order, 4.0) << c.name << " h " << steps[k] << " errors " << errors[k - 1] << " "
                          << errors[k];
  }
}

TEST(EventDriven, CircuitA_ObservedOrderIsFive) { check_order(circuit_a(), 2.0, {0.1, 0.05}); }

TEST(EventDriven, CircuitB_ObservedOrderIsFive) { check_order(circuit_b(), 2.0, {0.1, 0.05}); }

// AB08 (d): i_L(0) = −1 A is inconsistent with the blocking diode: the start is a state jump,
// logged with the unknown that jumps, after which v_C decays as V0 e^{−t/RC} exactly.
TEST(EventDriven, CircuitD_JumpAtStartIsLogged) {
  const double R = 10, v0 = 1 / kC;
  const Waveforms r = simulate(
      ab08(fmt::format("C1 n1 0 {} IC={}\nR1 n1 0 10\nL1 n2 n1 1 IC=-1\nD1 0 n2 DI", kC, v0), 0.5,
           "evrtol=1e-11"));
  ASSERT_TRUE(r.result.ok()) << r.result.summary.message;
  ASSERT_FALSE(r.result.events.empty());
  const auto& jump = r.result.events.front();
  EXPECT_EQ(jump.t, 0.0);
  EXPECT_EQ(jump.jump_signal, "i(l1)");
  EXPECT_EQ(jump.jump_from, -1.0);
  EXPECT_NEAR(jump.jump_to, 0.0, 1e-12);
  EXPECT_EQ(r.result.event_stats.jumps, 1);
  const auto v = r.series("v(n1)"), i = r.series("i(l1)");
  for (size_t k = 1; k < r.t.size(); ++k) {
    EXPECT_NEAR(i[k], 0.0, 1e-12) << "t = " << r.t[k];
    EXPECT_NEAR(v[k], v0 * std::exp(-r.t[k] / (R * kC)), 1e-8 * v0) << "t = " << r.t[k];
  }
}

// AB08 §1.2: the Zener RLC rings down and sticks on x2 = 0 (a sliding mode) once the current
// vanishes with v_C inside [0, Vz]; no event may follow (no chattering). A source in the loop
// that ramps from 0 at t = 15 s at 5 V/s then pulls it out: the diode's forward voltage
// V1 − v_C reaches 0 at t = 15 + v_C/5 exactly, where the exit must be located.
TEST(EventDriven, ZenerRlcSlidingEntryAndExit) {
  const std::string text = fmt::format(
      "Zener RLC\nV1 s 0 PWL(0 0 15 0 16 5)\nD1 s a ZMOD\nL1 a b 1 IC=1\nR1 b c 0.1\n"
      "C1 c 0 {} IC={}\n.model ZMOD D(BV=1)\n.options method=event evrtol=1e-11\n"
      ".tran 5m 15.5 UIC\n.end\n",
      kC, 1 / kC);
  const Waveforms r = simulate(text);
  ASSERT_TRUE(r.result.ok()) << r.result.summary.message;
  expect_complementarity(r);
  const auto times = event_times(r, "d1");
  std::vector<double> before, after;
  for (double t : times) (t < 14.9 ? before : after).push_back(t);
  ASSERT_GE(before.size(), 10u) << "the ringing switches the Zener's two branches";
  const double entry = before.back();
  EXPECT_GT(entry, 13.0);
  EXPECT_LT(entry, 14.0);
  // Sliding: the current is exactly zero and nothing switches until the ramp.
  const double vc = value_at(r, r.series("v(c)"), 15.0);
  EXPECT_GT(vc, 0.0);
  EXPECT_LT(vc, 1.0);
  for (size_t k = 0; k < r.t.size(); ++k) {
    if (r.t[k] > entry + 1e-6 && r.t[k] < 15.0) {
      EXPECT_EQ(r.at("i(l1)", k), 0.0) << "t = " << r.t[k];
    }
  }
  ASSERT_FALSE(after.empty()) << "the exit from the sliding mode";
  EXPECT_NEAR(after.front(), 15.0 + vc / 5.0, 1e-9 * 15.0);
  // Agreement with the θ-scheme at a fine step on the sliding value.
  circuit::TransientOptions theta;
  theta.method = circuit::TranMethod::kTheta;
  theta.h = 1e-4;
  const Waveforms ts = simulate(text, theta);
  ASSERT_TRUE(ts.result.ok()) << ts.result.summary.message;
  EXPECT_NEAR(value_at(ts, ts.series("v(c)"), 15.0), vc, 2e-4);
}

// The buck converter of examples/buck.cir run to its periodic steady state (5 ms, the RLC
// transient is then below e^{-25}): the switch flips exactly where the PWM ramp crosses VT, the
// diode takes over at the same instants (CCM), and the inductor current at those instants matches
// the closed-form periodic solution s = Φ_off Φ_on s of the two linear modes.
TEST(EventDriven, BuckSteadyStateMatchesClosedForm) {
  const double vin = 10, L = 100e-6, C = 10e-6, R = 10, T = 10e-6, t_on = 5e-6, t0 = 5e-9;
  const std::string text =
      "buck\nVin in 0 DC 10\nVpwm ctrl 0 PULSE(0 1 0 10n 10n 4.99u 10u)\nS1 in sw ctrl 0 SWI\n"
      "D1 0 sw DI\nL1 sw out 100u IC=0\nC1 out 0 10u IC=0\nR1 out 0 10\n.model SWI SW(VT=0.5)\n"
      ".model DI D\n.options method=event evrtol=1e-10\n.tran 10n 5m UIC\n.end\n";
  const Waveforms r = simulate(text);
  ASSERT_TRUE(r.result.ok()) << r.result.summary.message;
  // Closed form, state (i_L, v_C, 1).
  auto mode = [&](double v_sw) {
    Eigen::Matrix3d a;
    a << 0, -1 / L, v_sw / L, 1 / C, -1 / (R * C), 0, 0, 0, 0;
    return a;
  };
  const Eigen::Matrix3d on = (mode(vin) * t_on).exp(), off = (mode(0) * (T - t_on)).exp();
  const Eigen::Matrix3d p = off * on;
  const Eigen::Vector2d s0 =
      (Eigen::Matrix2d::Identity() - p.topLeftCorner<2, 2>()).inverse() * p.topRightCorner<2, 1>();
  const Eigen::Vector3d s1 = on * Eigen::Vector3d(s0[0], s0[1], 1);
  const double i_min = s0[0], i_max = s1[0];
  // Switch events: on at kT + 5 ns, off at kT + 5.005 µs.
  std::vector<double> sw_on, sw_off, d_on;
  for (const auto& e : r.result.events) {
    if (e.device == "s1") (e.transition == "off->on" ? sw_on : sw_off).push_back(e.t);
    if (e.device == "d1" && e.transition == "off->on") d_on.push_back(e.t);
  }
  ASSERT_GE(sw_on.size(), 499u);
  ASSERT_GE(sw_off.size(), 499u);
  for (size_t k = 0; k < sw_on.size(); ++k)
    ASSERT_NEAR(sw_on[k], static_cast<double>(k) * T + t0, 1e-12 * 5e-3) << "on " << k;
  for (size_t k = 0; k < sw_off.size(); ++k)
    ASSERT_NEAR(sw_off[k], static_cast<double>(k) * T + t0 + t_on, 1e-12 * 5e-3) << "off " << k;
  ASSERT_EQ(d_on.back(), sw_off.back()) << "the diode takes over at the switch's turn-off";
  // The inductor current at the last period's events (rows at exactly those times).
  auto i_at = [&](double t) {
    const auto it = std::find(r.t.begin(), r.t.end(), t);
    EXPECT_NE(it, r.t.end()) << "a point at the event time " << t;
    return it == r.t.end() ? 0.0 : r.at("i(l1)", static_cast<size_t>(it - r.t.begin()));
  };
  const double ripple = i_max - i_min;
  EXPECT_NEAR(ripple, (vin - vin * 0.5) * t_on / L, 0.01 * ripple) << "ΔI ≈ (Vin − Vout) D T / L";
  EXPECT_NEAR(i_at(sw_on.back()), i_min, 1e-6 * ripple);
  EXPECT_NEAR(i_at(sw_off.back()), i_max, 1e-6 * ripple);
}

// A relay without hysteresis (VH = 0) whose closing pulls its own control back below VT: an
// ideal sliding mode at v(c) = VT, i.e. infinitely many switchings (Zeno). The event-driven run
// detects the accumulation, hands each such interval to the θ-scheme, and finishes.
TEST(EventDriven, ZenoRelayFallsBackToTimeStepping) {
  const Waveforms r = simulate(
      "relay\nI1 0 c DC 1m\nC1 c 0 1u\nS1 c 0 c 0 SREL\n.model SREL SW(VT=0.5 VH=0 RON=100)\n"
      ".options method=event\n.tran 1u 2m UIC\n.end\n");
  ASSERT_TRUE(r.result.ok()) << r.result.summary.message;
  const auto& st = r.result.event_stats;
  ASSERT_FALSE(st.fallbacks.empty()) << "the Zeno interval is reported";
  EXPECT_NEAR(st.fallbacks.front().t_begin, 0.5e-3, 1e-9) << "v(c) reaches 0.5 V at 0.5 ms";
  EXPECT_GT(st.fallback_steps, 0);
  EXPECT_NEAR(r.result.t_end, 2e-3, 1e-15);
  EXPECT_NEAR(r.series("v(c)").back(), 0.5, 0.01) << "sliding at the threshold";
}

// The event-driven waveform and the θ-scheme's agree within the θ-scheme's error, which
// shrinks as h → 0 (the half-wave rectifier, a diode putting a capacitor across the source).
TEST(EventDriven, AgreesWithTimeSteppingAsStepShrinks) {
  const std::string text = read_example("rectifier.cir");
  std::vector<double> diffs;
  for (double h : {1e-5, 1e-6}) {
    circuit::TransientOptions ev;
    ev.method = circuit::TranMethod::kEvent;
    ev.event_rtol = 1e-10;
    ev.output_step = h;
    const Waveforms e = simulate(text, ev);
    ASSERT_TRUE(e.result.ok()) << e.result.summary.message;
    circuit::TransientOptions th;
    th.h = h;
    const Waveforms t = simulate(text, th);
    ASSERT_TRUE(t.result.ok()) << t.result.summary.message;
    double diff = 0;
    const auto v = t.series("v(out)"), ve = e.series("v(out)");
    for (size_t k = 0; k < t.t.size(); ++k)
      diff = std::max(diff, std::abs(v[k] - value_at(e, ve, t.t[k])));
    diffs.push_back(diff);
  }
  EXPECT_LT(diffs[1], diffs[0] / 3) << diffs[0] << " " << diffs[1];
  EXPECT_LT(diffs[1], 1e-3);
}

// Every bundled example runs in the event-driven mode too, and ends where the θ-scheme ends
// (within 1% of each .print signal's range, the θ-scheme's own error at the examples' steps).
TEST(EventDriven, EveryExampleRuns) {
  for (const auto& entry : std::filesystem::directory_iterator(NSSPICE_EXAMPLES_DIR)) {
    if (entry.path().extension() != ".cir") continue;
    const std::string name = entry.path().filename().string();
    const std::string text = read_example(name);
    circuit::TransientOptions ev;
    ev.method = circuit::TranMethod::kEvent;
    const Waveforms e = simulate(text, ev);
    ASSERT_TRUE(e.result.ok()) << name << ": " << e.result.summary.message;
    const Waveforms t = simulate(text);
    ASSERT_TRUE(t.result.ok()) << name << ": " << t.result.summary.message;
    EXPECT_NEAR(e.t.back(), t.t.back(), 1e-12 * t.t.back()) << name;
    for (const char* signal : {"v(out)", "v(n1)", "v(c)"}) {
      if (std::find(t.names.begin(), t.names.end(), signal) == t.names.end()) continue;
      const auto v = t.series(signal);
      double range = 0;
      for (double x : v) range = std::max(range, std::abs(x));
      EXPECT_NEAR(e.series(signal).back(), v.back(), 0.01 * range) << name << " " << signal;
    }
  }
}

}  // namespace
}  // namespace nsspice::testing
