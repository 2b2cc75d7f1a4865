// TranSettings: command line > netlist > default, resolved once, and validate() naming the
// option as the user wrote it with its allowed range.
#include "circuit/tran_settings.hpp"

#include <gtest/gtest.h>

namespace nsspice::circuit {
namespace {

Circuit with_tran(double tstep, double tstop, double tstart = 0, double tmax = 0) {
  Circuit c;
  c.tran = TranSpec{tstep, tstop, tstart, tmax, false};
  return c;
}

TEST(TranSettings, DefaultsComeFromTheNetlist) {
  Circuit c = with_tran(1e-6, 1e-3, 1e-4, 5e-7);
  c.theta = 0.75;
  c.event.rtol = 1e-7;
  c.stepping.reltol = 1e-4;
  const TranSettings s = resolve_tran_settings(c, {});
  EXPECT_EQ(s.method, TranMethod::kTheta);
  EXPECT_EQ(s.theta, 0.75);
  EXPECT_EQ(s.h, 5e-7) << "min(TSTEP, TMAX)";
  EXPECT_EQ(s.step, 0.0) << "no fixed step asked for";
  EXPECT_EQ(s.tstep, 1e-6);
  EXPECT_EQ(s.tstop, 1e-3);
  EXPECT_EQ(s.tstart, 1e-4);
  EXPECT_EQ(s.event_rtol, 1e-7);
  EXPECT_EQ(s.event_h_max, 5e-7) << "TMAX without evmaxstep";
  EXPECT_EQ(s.stepping.reltol, 1e-4);
  EXPECT_EQ(s.validate(), "");
}

TEST(TranSettings, CommandLineWinsOverTheNetlist) {
  Circuit c = with_tran(1e-6, 1e-3);
  c.theta = 0.5;
  c.method = TranMethod::kTheta;
  c.event.h_max = 1e-5;
  c.lcp_solver = solvers::LcpSolverKind::kLemke;
  TransientOptions o;
  o.theta = 1.0;
  o.h = 2e-7;
  o.method = TranMethod::kEvent;
  o.event_rtol = 1e-6;
  o.lcp_solver = solvers::LcpSolverKind::kMurty;
  const TranSettings s = resolve_tran_settings(c, o);
  EXPECT_EQ(s.theta, 1.0);
  EXPECT_EQ(s.h, 2e-7);
  EXPECT_EQ(s.step, 2e-7);
  EXPECT_EQ(s.method, TranMethod::kEvent);
  EXPECT_EQ(s.event_rtol, 1e-6);
  EXPECT_EQ(s.event_h_max, 2e-7) << "--step over .options evmaxstep";
  EXPECT_EQ(s.lcp_solver, solvers::LcpSolverKind::kMurty);
  EXPECT_EQ(s.theta_source, SettingSource::kCommandLine);
  EXPECT_EQ(s.validate(), "");
}

TEST(TranSettings, NetlistStepAndEvmaxstep) {
  Circuit c = with_tran(1e-6, 1e-3);
  c.stepping.step = 3e-7;
  c.event.h_max = 4e-6;
  const TranSettings s = resolve_tran_settings(c, {});
  EXPECT_EQ(s.step, 3e-7);
  EXPECT_EQ(s.h, 3e-7) << ".options step is the θ-scheme's fixed step (as run_transient takes it)";
  EXPECT_EQ(s.event_h_max, 4e-6);
}

TransientOptions theta_step(std::optional<double> theta, std::optional<double> h) {
  TransientOptions o;
  o.theta = theta;
  o.h = h;
  return o;
}

TEST(TranSettings, ValidateNamesTheCommandLineOption) {
  const Circuit c = with_tran(1e-6, 1e-3);
  EXPECT_EQ(resolve_tran_settings(c, theta_step(2.0, {})).validate(),
            "--theta 2: must be in [0.5, 1]");
  EXPECT_EQ(resolve_tran_settings(c, theta_step({}, -1.0)).validate(),
            "--step -1: must be positive (seconds)");
  EXPECT_EQ(resolve_tran_settings(c, theta_step({}, 0.0)).validate(),
            "--step 0: must be positive (seconds)");
  TransientOptions ev;
  ev.method = TranMethod::kEvent;
  ev.event_rtol = 5;
  EXPECT_EQ(resolve_tran_settings(c, ev).validate(), "--evrtol 5: must be in (0, 1)");
  TransientOptions theta_with_evrtol;
  theta_with_evrtol.event_rtol = 0;
  EXPECT_EQ(resolve_tran_settings(c, theta_with_evrtol).validate(),
            "--evrtol 0: must be in (0, 1)");
}

TEST(TranSettings, ValidateNamesTheNetlistOption) {
  Circuit c = with_tran(1e-6, 1e-3);
  c.theta = 0.3;
  EXPECT_EQ(resolve_tran_settings(c, {}).validate(), ".options theta=0.3: must be in [0.5, 1]");
  c.theta = 0.5;
  c.stepping.reltol = 2;
  EXPECT_EQ(resolve_tran_settings(c, {}).validate(), ".options reltol=2: must be in (0, 1)");
  c.stepping.reltol = 1e-3;
  c.stepping.vntol = 0;
  EXPECT_EQ(resolve_tran_settings(c, {}).validate(), ".options vntol=0: must be positive");
  c.stepping.vntol = 1e-6;
  c.method = TranMethod::kEvent;
  c.event.time_tol = 1e-2;
  EXPECT_EQ(resolve_tran_settings(c, {}).validate(),
            ".options evtimetol=0.01: must be in (0, 1e-3)");
  c.method = TranMethod::kTheta;
  EXPECT_EQ(resolve_tran_settings(c, {}).validate(), "")
      << "event options are checked for event-driven runs only";
}

TEST(TranSettings, MissingOrEmptyTranIsInvalid) {
  const Circuit none;
  EXPECT_EQ(resolve_tran_settings(none, {}).validate(),
            ".tran 0 0 0: needs TSTEP >= 0 and TSTOP > TSTART >= 0");
  const Circuit backwards = with_tran(1e-6, 1e-3, 2e-3);
  EXPECT_NE(resolve_tran_settings(backwards, {}).validate(), "");
}

}  // namespace
}  // namespace nsspice::circuit

namespace nsspice::circuit {
namespace {

// LTspice's `.tran TSTOP` and `.tran 0 TSTOP 0 TMAX`: TSTEP = 0 is valid; the fixed step is a
// 1000th of the run, capped by TMAX.
TEST(TranSettings, LtspiceFormsWithoutTstep) {
  Circuit c;
  c.tran = TranSpec{0, 30e-3, 0, 0, false};
  TranSettings s = resolve_tran_settings(c, {});
  EXPECT_EQ(s.validate(), "");
  EXPECT_DOUBLE_EQ(s.h, 30e-6);
  c.tran->tmax = 1e-6;
  s = resolve_tran_settings(c, {});
  EXPECT_EQ(s.validate(), "");
  EXPECT_DOUBLE_EQ(s.h, 1e-6);
  EXPECT_DOUBLE_EQ(fixed_step(0, 30e-3, 0, 2e-6), 2e-6) << ".options step / --step win";
}

}  // namespace
}  // namespace nsspice::circuit
