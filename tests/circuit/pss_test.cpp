// Periodic steady state by shooting (circuit/pss.hpp): periodic to 1e-9, equal to a long
// transient's last period, and found in a few Newton iterations where a transient needs hundreds
// of periods; on the θ map (compared with a fixed-step θ transient) and on the event map with its
// exact Jacobian (compared with an event-driven transient). Every test names its map and its
// transient's integrator (TransientOptions::method, fixed step or not): none depends on which
// stepping `run` uses by default.
#include "circuit/pss.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "circuit/transient.hpp"
#include "circuit_helpers.hpp"

namespace nsspice::circuit {
namespace {

using testing::elaborate_text;

struct Orbit {
  std::vector<double> t;
  std::vector<Eigen::VectorXd> x;
};

Orbit orbit_of(const Circuit& c, const Assembled& a, const PssResult& r, const PssOptions& opt) {
  Orbit o;
  const solvers::Summary ran =
      run_periods(c, a, r, opt, 1, [&](double t, const Eigen::VectorXd& x, const Eigen::VectorXd&) {
        o.t.push_back(t);
        o.x.push_back(x);
      });
  EXPECT_TRUE(ran.solved()) << ran.message;
  return o;
}

// The last period [t_end − T, t_end] of a fixed-step θ transient (step h), times shifted to [0, T].
Orbit last_period(const Circuit& c, const Assembled& a, double period, double h) {
  Orbit o;
  TransientOptions opt;
  opt.method = TranMethod::kTheta;
  opt.adaptive = false;
  opt.h = h;
  const double t_end = c.tran->tstop;
  const TransientResult r = run_transient(
      c, a, opt,
      [&](double t, const Eigen::VectorXd& x, const Eigen::VectorXd&, const Eigen::VectorXd&) {
        if (t >= t_end - period - 1e-3 * h) {
          o.t.push_back(t - (t_end - period));
          o.x.push_back(x);
        }
        return true;
      });
  EXPECT_TRUE(r.ok()) << r.summary.message;
  return o;
}

// max over the common time points of |a − b| / max|b|, unknown by unknown.
double orbit_difference(const Orbit& a, const Orbit& b, double h) {
  double worst = 0;
  Eigen::VectorXd scale = Eigen::VectorXd::Zero(b.x.front().size());
  for (const auto& x : b.x) scale = scale.cwiseMax(x.cwiseAbs());
  size_t matched = 0;
  for (size_t i = 0, j = 0; i < a.t.size(); ++i) {
    while (j < b.t.size() && b.t[j] < a.t[i] - 1e-6 * h) ++j;
    if (j == b.t.size() || std::abs(b.t[j] - a.t[i]) > 1e-6 * h) continue;
    ++matched;
    for (Eigen::Index k = 0; k < scale.size(); ++k)
      if (scale[k] > 1e-9) worst = std::max(worst, std::abs(a.x[i][k] - b.x[j][k]) / scale[k]);
  }
  EXPECT_GT(matched, a.t.size() * 9 / 10) << "the two runs share their time points";
  return worst;
}

// A netlist elaborated (without errors), assembled, and its PSS.
struct PssCase {
  testing::Elaborated e;
  Assembled a;
  PssResult r;
  PssCase(const std::string& text, const PssOptions& o) : e(elaborate_text(text)) {
    EXPECT_FALSE(e.diags.has_errors()) << e.text();
    a = assemble(e.circuit);
    r = periodic_steady_state(e.circuit, a, o);
  }
};

PssOptions with_period(double period, long count_periods = 0) {
  PssOptions o;
  o.period = period;
  o.map = PssMap::kTheta;
  o.max_transient_periods = count_periods;
  return o;
}

// The buck of examples/buck.cir (100 kHz, D = 0.5, L = 100 µH, C = 10 µF) with load `r`, h = 50 ns:
// its PSS, which must be periodic to 1e-9 and equal the last period of a `tstop` transient to
// 1e-6; returns the orbit's minimum inductor current and mean output voltage.
struct BuckOrbit {
  PssResult pss;
  double i_min = 1e9, v_mean = 0;
};
BuckOrbit buck_orbit(const std::string& r, const std::string& tstop, long count_periods) {
  const PssOptions o = with_period(10e-6, count_periods);
  const PssCase c(
      "buck\nVin in 0 DC 10\nVpwm ctrl 0 PULSE(0 1 0 10n 10n 4.99u 10u)\nS1 in sw ctrl 0 SWI\n"
      "D1 0 sw DI\nL1 sw out 100u IC=0\nC1 out 0 10u IC=0\nR1 out 0 " +
          r + "\n.model SWI SW(VT=0.5)\n.model DI D\n.tran 50n " + tstop + " UIC\n.end\n",
      o);
  const auto& e = c.e;
  const Assembled& a = c.a;
  BuckOrbit out;
  out.pss = c.r;
  if (!out.pss.ok()) return out;
  EXPECT_LE(out.pss.residual, 1e-9);
  const Orbit pss = orbit_of(e.circuit, a, out.pss, o);
  EXPECT_LT(orbit_difference(pss, last_period(e.circuit, a, o.period, 50e-9), 50e-9), 1e-6);
  const auto column = [&](const char* name) {
    return std::find(a.unknown_names.begin(), a.unknown_names.end(), name) -
           a.unknown_names.begin();
  };
  for (const auto& x : pss.x) {
    out.i_min = std::min(out.i_min, x[column("i(l1)")]);
    out.v_mean += x[column("v(out)")] / static_cast<double>(pss.x.size());
  }
  return out;
}

TEST(Pss, ThetaMapBuckInCcmEqualsTheLastPeriodOfALongTransient) {
  // 10 ohm: CCM; the inductor current stays positive, Vout ≈ D·Vin.
  const BuckOrbit b = buck_orbit("10", "6m", 2000);
  ASSERT_TRUE(b.pss.ok()) << b.pss.summary.message;
  EXPECT_LE(b.pss.newton_iterations, 6);
  EXPECT_GT(b.pss.transient_periods, 100);
  EXPECT_GT(b.i_min, 0.1);
  EXPECT_NEAR(b.v_mean, 5.0, 0.05);
}

TEST(Pss, ThetaMapBuckInDcmEqualsTheLastPeriodOfALongTransient) {
  // 100 ohm (critical load 2L/(T(1 − D)) = 40 ohm): the inductor current returns to zero every
  // period and the diode blocks with the switch open (three modes); Vout rises above D·Vin.
  const BuckOrbit b = buck_orbit("100", "8m", 0);
  ASSERT_TRUE(b.pss.ok()) << b.pss.summary.message;
  EXPECT_LE(b.pss.newton_iterations, 10);
  EXPECT_NEAR(b.i_min, 0, 1e-12);
  EXPECT_GT(b.v_mean, 5.5);
}

TEST(Pss, ThetaMapBoostEqualsTheLastPeriodOfALongTransient) {
  // examples/boost.cir (D = 0.6, 50 ohm) with C = 10 µF instead of 47 µF (a shorter transient
  // for the comparison), h = 100 ns: 3000 periods of transient against PSS.
  const PssCase c(
      "boost\nVin in 0 DC 5\nVpwm ctrl 0 PULSE(0 1 0 10n 10n 5.99u 10u)\nL1 in sw 100u IC=0\n"
      "S1 sw 0 ctrl 0 SWI\nD1 sw out DI\nC1 out 0 10u IC=0\nR1 out 0 50\n.model SWI SW(VT=0.5)\n"
      ".model DI D\n.tran 100n 30m UIC\n.end\n",
      with_period(10e-6));
  const PssResult& r = c.r;
  ASSERT_TRUE(r.ok()) << r.summary.message;
  EXPECT_LE(r.residual, 1e-9);
  EXPECT_LE(r.newton_iterations, 4);
  EXPECT_LT(r.periods_simulated, 30);
  const Orbit pss = orbit_of(c.e.circuit, c.a, r, with_period(10e-6));
  EXPECT_LT(orbit_difference(pss, last_period(c.e.circuit, c.a, 10e-6, 100e-9), 100e-9), 1e-6);
}

TEST(Pss, ThetaMapHighQFilterInAFewNewtonIterations) {
  // A square wave at 10 kHz into a series RLC with Q = 50 tuned to 10 kHz: a transient decays
  // like exp(−ω0 t / 2Q), some 330 periods to 1e-9; the map is affine, Newton needs 1–2 steps.
  PssOptions o = with_period(100e-6, 5000);
  o.warmup_periods = 1;
  const PssCase c(
      "hiq\nV1 in 0 PULSE(-1 1 0 1n 1n 49.999u 100u)\nR1 in a 0.6283185\nL1 a out 500u\n"
      "C1 out 0 506.6059n\nR2 out 0 1meg\n.tran 0.1u 1m\n.end\n",
      o);
  const PssResult& r = c.r;
  ASSERT_TRUE(r.ok()) << r.summary.message;
  EXPECT_LE(r.newton_iterations, 3);
  EXPECT_GT(r.transient_periods, 200);
  EXPECT_LE(r.residual, 1e-9);
}

TEST(Pss, ThetaMapResonantConverterConvergesFromAnyWarmUp) {
  // examples/analyses/pss_resonant.cir: the finite-difference Newton iteration alone stalled
  // from some warm-ups (20 periods); the fallback to plain transient periods makes it converge.
  std::ifstream in(std::string(NSSPICE_EXAMPLES_DIR) + "/analyses/pss_resonant.cir");
  std::stringstream text;
  text << in.rdbuf();
  for (int warmup : {0, 5, 20}) {
    PssOptions o = with_period(10e-6);
    o.warmup_periods = warmup;
    o.steps_per_period = 200;
    const PssCase c(text.str(), o);
    EXPECT_TRUE(c.r.ok()) << "warm-up " << warmup << ": " << c.r.summary.message;
    EXPECT_LE(c.r.residual, 1e-9);
    EXPECT_LT(c.r.periods_simulated, 300) << "warm-up " << warmup;
  }
}

TEST(Pss, SourcesNotPeriodicInTAreNamed) {
  // A 1 kHz sine with T = 0.3 ms, and a 7 µs PULSE train with T = 10 µs.
  for (const char* source : {"SIN(0 1 1k)", "PULSE(0 1 0 1n 1n 4u 7u)"}) {
    const PssCase c(
        std::string("p\nV1 a 0 ") + source + "\nR1 a b 1k\nC1 b 0 1u\n.tran 1u 1m\n.end\n",
        with_period(std::string(source).starts_with("SIN") ? 0.3e-3 : 10e-6));
    const PssResult& r = c.r;
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.failure, PssFailure::kInput);
    EXPECT_EQ(r.summary.status, solvers::Status::kInvalidInput);
    EXPECT_NE(r.summary.message.find("source 'v1' is not periodic in T"), std::string::npos)
        << r.summary.message;
  }
}

// The failures of a PSS end in the status vocabulary of solvers/status.hpp, chosen by cause: a
// step that fails inside a period (warm-up here) carries the step's own status, its time within
// the period and the devices; a failed initial point its static solve's; bad options are invalid
// input; a solved orbit is solved with an empty message.
TEST(PssStatus, AFailedStepCarriesItsStatusTimeAndDevicesOnBothMaps) {
  // kSwitchShortsSource of run_failure_test.cpp, made periodic in T = 1 ms: the switch closes
  // across the source at 0.5 ms of every period.
  const std::string text =
      "t\nV1 a 0 1\nR1 a 0 1\nS1 a 0 ctl 0 SW\nVc ctl 0 PULSE(0 1 0.5m 1n 1n 0.2m 1m)\n"
      ".model SW SW(VT=0.5 RON=0)\n.tran 1u 1m\n.end\n";
  for (const PssMap map : {PssMap::kEvent, PssMap::kTheta}) {
    PssOptions o = with_period(1e-3);
    o.map = map;
    const PssCase c(text, o);
    EXPECT_FALSE(c.r.ok());
    EXPECT_EQ(c.r.failure, PssFailure::kStep);
    EXPECT_EQ(c.r.summary.status, solvers::Status::kNumericalFailure) << c.r.summary.message;
    EXPECT_NEAR(c.r.summary.time, 0.5e-3, 2e-6) << c.r.summary.message;
    EXPECT_EQ(c.r.summary.devices, (std::vector<std::string>{"v1", "s1"})) << c.r.summary.message;
    EXPECT_NE(c.r.summary.message.find("warm-up: at t = 0.000500"), std::string::npos)
        << c.r.summary.message;
  }
}

TEST(PssStatus, InitialPointOptionsAndASolvedOrbitAreToldApart) {
  // A floating node between two capacitors: the operating point fails before any period.
  const PssCase floating("t\nV1 a 0 1\nR1 a 0 1\nC1 a b 1u\nC2 b 0 1u\n.tran 1u 1m\n.end\n",
                         with_period(1e-3));
  EXPECT_EQ(floating.r.failure, PssFailure::kInitialPoint);
  EXPECT_EQ(floating.r.summary.status, solvers::Status::kNumericalFailure);
  EXPECT_EQ(floating.r.summary.time, 0.0);
  EXPECT_EQ(floating.r.summary.devices, (std::vector<std::string>{"c1", "c2"}));
  // Options rejected before computing.
  PssOptions bad = with_period(1e-3);
  bad.tol = 2;
  const std::string rc = "t\nV1 a 0 PULSE(0 1 0 1n 1n 0.5m 1m)\nR1 a b 1k\nC1 b 0 1u\n.end\n";
  const PssCase rejected(rc, bad);
  EXPECT_EQ(rejected.r.failure, PssFailure::kInput);
  EXPECT_EQ(rejected.r.summary.status, solvers::Status::kInvalidInput);
  EXPECT_NE(rejected.r.summary.message.find("tolerance"), std::string::npos);
  const PssCase solved(rc, with_period(1e-3));
  EXPECT_TRUE(solved.r.ok()) << solved.r.summary.message;
  EXPECT_EQ(solved.r.summary.status, solvers::Status::kSolved);
  EXPECT_EQ(solved.r.failure, PssFailure::kNone);
  EXPECT_TRUE(solved.r.summary.message.empty());
}

TEST(PssStatus, EachCauseHasItsStatus) {
  using solvers::Status;
  EXPECT_EQ(status_of(PssFailure::kInput), Status::kInvalidInput);
  for (PssFailure f : {PssFailure::kNoOrbit, PssFailure::kModeSequence, PssFailure::kPeriod})
    EXPECT_EQ(status_of(f), Status::kNoConvergence) << to_string(f);
  for (PssFailure f : {PssFailure::kSubharmonic, PssFailure::kUnstable, PssFailure::kNoCrossing})
    EXPECT_EQ(status_of(f), Status::kInfeasible) << to_string(f);
  for (PssFailure f : {PssFailure::kNotIsolated, PssFailure::kLinearization})
    EXPECT_EQ(status_of(f), Status::kNumericalFailure) << to_string(f);
}

TEST(Pss, BadOptionsAreRejected) {
  EXPECT_NE(PssOptions{}.validate().find("the period must be > 0 s"), std::string::npos);
  PssOptions o;
  o.period = 1e-3;
  o.tol = 2;
  EXPECT_NE(o.validate().find("tolerance"), std::string::npos);
}

}  // namespace
}  // namespace nsspice::circuit
