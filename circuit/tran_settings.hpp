#pragma once
// The transient settings of one run, fully resolved: every value taken once, in the order
//   command line (TransientOptions overrides)  >  the netlist (.tran, .options)  >  default,
// and checked by one validate(). The app's run plan (app/cli/run_plan.hpp) resolves and
// validates them before any file is opened; the transient (circuit/src/transient*.cpp) reads
// them from the same function.
//
// Symbols as in docs/formulation.md: θ the scheme's weight, h the step, [t0, T] the run.
#include <optional>
#include <string>

#include "circuit/circuit.hpp"
#include "circuit/transient.hpp"
#include "solvers/lcp/policy.hpp"

namespace nsspice::circuit {

// Where a value came from, for messages that name the option the user wrote.
enum class SettingSource { kDefault, kNetlist, kCommandLine };

struct TranSettings {
  TranMethod method = TranMethod::kTheta;  // --method > .options method > theta
  double theta = 0.5;                      // θ ∈ [½, 1]: --theta > .options theta > ½
  // The θ-scheme's step h [s]: --step > min(TSTEP, TMAX) of .tran (TSTEP without TMAX).
  double h = 0;
  // A fixed step asked for [s]: --step > .options step; 0 = none (the step comes from .tran).
  double step = 0;
  // Error-controlled steps (the default): no fixed step asked for, and neither
  // TransientOptions::adaptive nor .options stepping=fixed says otherwise.
  bool adaptive = true;
  // The print interval [s]: TSTEP, else a 1000th of the run (LTspice's `.tran TSTOP`).
  double output_step = 0;
  double tstep = 0, tstop = 0, tstart = 0, tmax = 0;  // .tran [s]; tmax = 0: not given
  solvers::LcpSolverKind lcp_solver = solvers::LcpSolverKind::kAuto;  // --lcp-solver > .options
  // Event-driven mode: evrtol (--evrtol > .options evrtol), evatol, evtimetol, and the largest
  // step h_max [s] (--step > .options evmaxstep > .tran TMAX; 0 = the integrator's default).
  double event_rtol = 1e-9, event_atol = 1e-12, event_time_tol = 1e-12, event_h_max = 0;
  StepSettings stepping;  // .options reltol abstol vntol chgtol trtol (error-controlled θ-scheme)

  SettingSource theta_source = SettingSource::kDefault;
  SettingSource step_source = SettingSource::kDefault;
  SettingSource event_rtol_source = SettingSource::kDefault;

  // Empty when valid, else the first value out of range, naming the option as the user wrote
  // it and the allowed range: "--theta 2: must be in [0.5, 1]".
  std::string validate() const;
};

// The fixed step of the θ-scheme: `step` (--step, .options step) if > 0, else TSTEP (a 1000th
// of TSTOP when TSTEP = 0, LTspice's `.tran TSTOP`), capped by TMAX when given.
double fixed_step(double tstep, double tstop, double tmax, double step);

// Applies command line > .options/.tran > default. A circuit without .tran gives tstop = 0,
// which validate() rejects.
TranSettings resolve_tran_settings(const Circuit& circuit, const TransientOptions& overrides);

}  // namespace nsspice::circuit
