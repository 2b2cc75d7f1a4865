// The autonomous periodic steady state (PssOptions::trigger; circuit/src/pss_trigger.cpp): the
// period is an unknown. Three self-oscillating circuits of different kinds — an RC relaxation
// oscillator (closed form T = 2RC ln(7/3)), a hysteretic buck whose frequency follows the load, an
// LC tank kept oscillating by a hysteretic relay — against long event-driven transients
// (evrtol 1e-10, dense output): the period between the transient's last trigger crossings and
// the state at the crossing equal the orbit's to 1e-6 relative. And the named failures.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "circuit/pss.hpp"
#include "circuit/src/pss_map.hpp"
#include "circuit/transient.hpp"
#include "circuit_helpers.hpp"

namespace nsspice::circuit {
namespace {

const char* kRelaxation =
    "relaxation oscillator\nV1 vcc 0 DC 5\nVr ref 0 DC 2.5\nS1 vcc drv ref cap SWM\n"
    "S2 drv 0 cap ref SWM\nR1 drv cap 1k\nC1 cap 0 1u IC=0\n.model SWM SW(VT=0 VH=1)\n"
    ".tran 1u 20m UIC\n.end\n";

// Output ripple through the capacitor's ESR; the switch follows v(out) with a 100 mV band.
const char* kHystereticBuck =
    "hysteretic buck\nVin in 0 DC 12\nVref ref 0 DC 5\nS1 in sw ref out SWH\nD1 0 sw DI\n"
    "L1 sw out 22u\nC1 mid 0 47u\nResr out mid 0.05\nRL out 0 {}\n"
    ".model SWH SW(VT=0 VH=0.05)\n.model DI D\n.tran 0.1u 2m\n.end\n";

const char* kRelayTank =
    "LC tank with a relay\nVp vp 0 DC 5\nVn vn 0 DC -5\nS1 vp drv t 0 SWR\nS2 vn drv 0 t SWR\n"
    "Rd drv t 1k\nL1 t 0 100u\nC1 t 0 10n IC=0.5\nRp t 0 2k\n.model SWR SW(VT=0 VH=0.2)\n"
    ".tran 10n 1m UIC\n.end\n";

std::string with(std::string text, const std::string& value) {
  if (const auto at = text.find("{}"); at != std::string::npos) text.replace(at, 2, value);
  return text;
}

struct TriggerCase {
  testing::Elaborated e;
  Assembled a;
  PssOptions o;
  PssResult r;
  TriggerCase(const std::string& text, double guess, const std::string& signal, double level,
              int warmup = 5)
      : e(testing::elaborate_text(text)) {
    EXPECT_FALSE(e.diags.has_errors()) << e.text();
    a = assemble(e.circuit);
    o.period = guess;
    o.warmup_periods = warmup;
    o.trigger = PssTrigger{signal, level, true, true};
  }
  void solve() { r = periodic_steady_state(e.circuit, a, o); }
  Eigen::Index column(const std::string& name) const {
    return std::find(a.unknown_names.begin(), a.unknown_names.end(), name) -
           a.unknown_names.begin();
  }
};

// The rising crossings of unknown k through `level` in an event-driven transient of `tstop`
// with dense output every `dt` (from the integrator's collocation polynomials): their times and
// states, linearly interpolated (error about dt²/8·|x''|, below 1e-7 relative here).
struct Crossings {
  std::vector<double> t;
  std::vector<Eigen::VectorXd> x;
};
Crossings transient_crossings(const TriggerCase& c, double tstop, double dt, Eigen::Index k,
                              double level) {
  Crossings out;
  Circuit circuit = c.e.circuit;
  circuit.tran->tstop = tstop;
  circuit.tran->tstep = dt;
  TransientOptions opt;
  opt.method = TranMethod::kEvent;
  opt.event_rtol = 1e-10;
  opt.output_step = dt;
  double t0 = -1;
  Eigen::VectorXd x0;
  const TransientResult r = run_transient(
      circuit, c.a, opt,
      [&](double t, const Eigen::VectorXd& x, const Eigen::VectorXd&, const Eigen::VectorXd&) {
        if (t0 >= 0 && t > t0 && x0[k] < level && x[k] >= level) {
          const double u = (level - x0[k]) / (x[k] - x0[k]);
          out.t.push_back(t0 + u * (t - t0));
          out.x.push_back(x0 + u * (x - x0));
        }
        t0 = t;
        x0 = x;
        return true;
      });
  EXPECT_TRUE(r.ok()) << r.summary.message;
  return out;
}

// The orbit's period and its start equal the transient's last period and its state at the
// last crossing, to `tol` relative (the state: relative to ‖x0‖∞, over the differential unknowns).
void expect_equal_to_transient(const TriggerCase& c, double tstop, const std::string& signal,
                               double tol) {
  ASSERT_TRUE(c.r.ok()) << c.r.summary.message;
  EXPECT_LE(c.r.residual, 1e-9);
  const Eigen::Index k = c.column(signal);
  const Crossings cross = transient_crossings(c, tstop, c.r.period / 8000, k, c.r.trigger_level);
  // The last two periods before the transient's final step (whose x' ends the run).
  ASSERT_GE(cross.t.size(), 4u);
  const size_t last = cross.t.size() - 2;
  const double t_tran = cross.t[last] - cross.t[last - 1];
  EXPECT_NEAR(c.r.period, t_tran, tol * t_tran);
  const double scale = c.r.x0.cwiseAbs().maxCoeff();
  for (const std::string name : {"v(cap)", "v(mid)", "v(t)", "i(l1)"}) {
    const Eigen::Index j = c.column(name);
    if (j < static_cast<Eigen::Index>(c.a.unknown_names.size())) {
      EXPECT_NEAR(cross.x[last][j], c.r.x0[j], tol * scale) << name;
    }
  }
}

TEST(PssTrigger, RelaxationOscillatorPeriodIsTheClosedForm) {
  // Charging to 3.5 V toward 5 V from 1.5 V, discharging to 1.5 V from 3.5 V toward 0:
  // T = 2RC ln(3.5/1.5).
  TriggerCase c(kRelaxation, 1.5e-3, "v(cap)", 2.5);
  c.solve();
  ASSERT_TRUE(c.r.ok()) << c.r.summary.message;
  const double exact = 2e-3 * std::log(3.5 / 1.5);
  EXPECT_NEAR(c.r.period, exact, 1e-9 * exact);
  EXPECT_NEAR(c.r.x0[c.column("v(cap)")], 2.5, 1e-9);
  EXPECT_LE(c.r.residual, 1e-9);
  expect_equal_to_transient(c, 20e-3, "v(cap)", 1e-6);
}

TEST(PssTrigger, RelaxationOscillatorFromAPoorGuessWithoutWarmUp) {
  // Newton itself must move T: from a guess 40% low and no warm-up.
  TriggerCase c(kRelaxation, 1e-3, "v(cap)", 3.0, 0);
  c.solve();
  ASSERT_TRUE(c.r.ok()) << c.r.summary.message;
  const double exact = 2e-3 * std::log(3.5 / 1.5);
  EXPECT_NEAR(c.r.period, exact, 1e-9 * exact);
  EXPECT_NEAR(c.r.x0[c.column("v(cap)")], 3.0, 1e-9);
}

TEST(PssTrigger, HystereticBuckFrequencyFollowsTheLoad) {
  double last = 0;
  // 2.5 ohm: continuous conduction, T = 15.0 µs; 20 ohm: the current stops every period and
  // the idle time grows with the load resistance (T = 25.4 µs).
  for (const char* load : {"2.5", "20"}) {
    TriggerCase c(with(kHystereticBuck, load), 20e-6, "i(l1)", 0, 2);
    c.o.trigger->level_given = false;  // the middle of the current's range
    c.o.stabilization = 2e-3;          // the start-up overshoot decays with R·C = 0.94 ms
    c.solve();
    ASSERT_TRUE(c.r.ok()) << c.r.summary.message;
    EXPECT_GE(c.r.newton_iterations, 1) << load;
    expect_equal_to_transient(c, 3e-3, "i(l1)", 1e-6);
    if (last > 0) {
      EXPECT_GT(c.r.period, 1.5 * last);  // a lower frequency
    }
    last = c.r.period;
  }
}

TEST(PssTrigger, RelayDrivenLcTankEqualsALongTransient) {
  TriggerCase c(kRelayTank, 6e-6, "v(t)", 0, 0);
  c.solve();
  ASSERT_TRUE(c.r.ok()) << c.r.summary.message;
  EXPECT_GE(c.r.newton_iterations, 2);
  ASSERT_EQ(c.r.multipliers.size(), 1u);  // two states, the trivial multiplier dropped
  EXPECT_LT(std::abs(c.r.multipliers[0]), 1);
  // Near the tank's 2π√(LC) = 6.283 µs, a little longer (the relay's hysteresis lags).
  EXPECT_GT(c.r.period, 6.283e-6);
  EXPECT_LT(c.r.period, 6.5e-6);
  expect_equal_to_transient(c, 0.4e-3, "v(t)", 1e-6);
}

// A period map continues the run before it: a hysteretic switch whose control is inside its band
// at the period's start keeps the state it ended the last period with (here S1 on: the capacitor
// charges; S1 off and S2 on: it discharges), on both maps. Without this the warm-up of the
// relaxation oscillator stops with both switches off (their `initially_on` state).
TEST(PssTrigger, APeriodKeepsTheSwitchStatesOfTheOneBefore) {
  TriggerCase c(kRelaxation, 1.5e-3, "v(cap)", 2.5);
  const Eigen::Index cap = c.column("v(cap)"), drv = c.column("v(drv)"), vcc = c.column("v(vcc)");
  const auto pair = [&](const char* name) {
    return std::find(c.a.pair_names.begin(), c.a.pair_names.end(), name) - c.a.pair_names.begin();
  };
  for (const PssMap kind : {PssMap::kEvent, PssMap::kTheta}) {
    for (const bool charging : {true, false}) {
      PssOptions o;
      o.period = 50e-6;  // short: v(cap) stays inside the band (1.5 V, 3.5 V)
      o.map = kind;
      o.steps_per_period = 50;
      const detail::MadeMap made = detail::make_period_map(c.e.circuit, c.a, o);
      ASSERT_TRUE(made.map) << made.failure.message;
      detail::PeriodMap* map = made.map.get();
      detail::PssState from{Eigen::VectorXd::Zero(c.a.mlcs.n), Eigen::VectorXd::Zero(c.a.mlcs.m),
                            std::vector<char>(static_cast<size_t>(c.a.mlcs.m), 0)},
          to;
      from.x[cap] = 2.5;
      from.x[vcc] = 5;
      from.x[c.column("v(ref)")] = 2.5;
      from.x[drv] = charging ? 5 : 0;
      from.mode[static_cast<size_t>(pair(charging ? "s1" : "s2"))] = 1;
      ASSERT_TRUE(map->run(from, to).solved());
      // RC = 1 ms: 50 µs moves v(cap) by about 2.5·(1 − e^−0.05) = 0.122 V either way.
      EXPECT_NEAR(to.x[cap], charging ? 2.622 : 2.378, 0.002)
          << (charging ? "charging" : "discharging");
    }
  }
}

TEST(PssTrigger, NoCrossingIsNamed) {
  TriggerCase c(kRelaxation, 1.5e-3, "v(cap)", 4.0);  // above the 3.5 V the capacitor reaches
  c.solve();
  EXPECT_FALSE(c.r.ok());
  EXPECT_EQ(c.r.failure, PssFailure::kNoCrossing);
  EXPECT_EQ(c.r.summary.status, solvers::Status::kInfeasible);
  EXPECT_NE(c.r.summary.message.find("does not cross 4 rising"), std::string::npos)
      << c.r.summary.message;
}

TEST(PssTrigger, BadTriggersAreInputErrors) {
  TriggerCase state(kRelaxation, 1.5e-3, "v(drv)", 2.5);
  state.solve();
  EXPECT_EQ(state.r.failure, PssFailure::kInput);
  EXPECT_EQ(state.r.summary.status, solvers::Status::kInvalidInput);
  EXPECT_NE(state.r.summary.message.find("not a state"), std::string::npos)
      << state.r.summary.message;
  TriggerCase missing(kRelaxation, 1.5e-3, "v(nowhere)", 2.5);
  missing.solve();
  EXPECT_NE(missing.r.summary.message.find("no node 'nowhere'"), std::string::npos)
      << missing.r.summary.message;
  std::string driven = kRelaxation;
  driven.replace(driven.find("DC 5"), 4, "PULSE(0 5 0 1u 1u 1m 2m)");
  TriggerCase pulse(driven, 1.5e-3, "v(cap)", 2.5);
  pulse.solve();
  EXPECT_EQ(pulse.r.failure, PssFailure::kInput);
  EXPECT_EQ(pulse.r.summary.status, solvers::Status::kInvalidInput);
  EXPECT_NE(pulse.r.summary.message.find("source 'v1'"), std::string::npos)
      << pulse.r.summary.message;
  TriggerCase theta(kRelaxation, 1.5e-3, "v(cap)", 2.5);
  theta.o.map = PssMap::kTheta;
  EXPECT_NE(theta.o.validate().find("event map"), std::string::npos);
}

}  // namespace
}  // namespace nsspice::circuit
