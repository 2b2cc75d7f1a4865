#pragma once
// Transient analysis of an elaborated circuit: the initial point (DC operating point, or the
// UIC/.ic data), then the θ-scheme of solvers/time/theta_stepper.hpp step by step, or the
// event-driven integrator of solvers/time/event_driven.hpp (.options method=event), handing
// every accepted point to an observer. Failures name the devices and the time.
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "circuit/assemble.hpp"
#include "circuit/circuit.hpp"
#include "solvers/status.hpp"
#include "solvers/time/event_driven.hpp"
#include "solvers/time/theta_stepper.hpp"

namespace nsspice::circuit {

// The signals written for a run: every unknown (node voltages, branch currents) and every
// device current derived from the multipliers (diodes, switches, MOS drains), in that order.
//
// After them come the rate signals ddt(u) of the unknowns u that carry a state (a nonzero
// column of E: the node voltages at capacitors, inductor currents), taken from the scheme's own
// derivative x' (ThetaStepper::xdot): a capacitor's current C·ddt(v(a)) − C·ddt(v(b)) is the
// scheme's, exact at every point of every step size. They are not written unless asked for:
// indices names.size() + k address rate_names[k].
struct SignalTable {
  std::vector<std::string> names;
  std::vector<DerivedSignal> derived;
  std::vector<std::string> rate_names;  // "ddt(v(a))"
  std::vector<int> rate_unknowns;       // the unknown of each
  void evaluate(const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
                std::vector<double>& out) const;
  // Only the signals `which` (indices into names, then rate_names): out[k] = signal which[k];
  // the rates are 0 when xdot is empty (a static solution).
  void evaluate(const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
                const Eigen::VectorXd& xdot, std::span<const size_t> which,
                std::vector<double>& out) const;
  void evaluate(const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
                std::span<const size_t> which, std::vector<double>& out) const {
    evaluate(x, lambda, Eigen::VectorXd(), which, out);
  }
};
SignalTable make_signals(const Circuit& circuit, const Assembled& assembled);

struct TransientOptions {
  std::optional<double> theta;  // overrides .options theta
  std::optional<double> h;      // a fixed step (--step; overrides .options step): no error control
  int restart_steps = 2;
  bool restart_on_jump = true;
  std::optional<solvers::LcpSolverKind> lcp_solver{};  // overrides .options lcpsolver
  bool block_flip = true;             // false: every mode change is found by the LCP solver (tests)
  long dump_step = 0;                 // > 0: capture the LCP of this step (1 = the first step)
  std::optional<double> dump_time{};  // capture the LCP of the first step ending at or after it
  std::optional<TranMethod> method{};  // overrides .options method
  double output_step = 0;  // event-driven: > 0 adds points every output_step (dense output)
  std::optional<double> event_rtol{};  // overrides .options evrtol (event-driven)
  bool event_fixed_step = false;       // event-driven: steps of exactly h_max (order studies)
  // Points every TSTEP between the accepted points (dense output; both methods). Off: the
  // observer sees the integrator's own points only (tests of the integrators' invariants).
  bool dense_output = true;
  // Error-controlled steps (overrides .options stepping); experimental, see docs/theory.md.
  std::optional<bool> adaptive{};
  // θ-method: symbolic analyses made once for a circuit of the same pattern (the runs of a sweep,
  // restamped on one AssemblyPattern); used when their patterns fit (ThetaOptions::analyses).
  const solvers::StepperAnalyses* analyses = nullptr;
};

// One row of the event log: a device's mode change (or a state jump, device "").
struct EventLogEntry {
  double t = 0;
  std::string device;       // the pair's device; "" for a jump without a mode change
  std::string pair;         // which pair of a multi-pair device (Assembled::pair_roles), or ""
  std::string transition;   // "off->on", "on->off", "jump"
  std::string cause;        // start, guard, switch, breakpoint, resume
  double impulse = 0;       // the pair's impulse in a state jump (A·s), else 0
  std::string jump_signal;  // the unknown with the largest jump ("" if none)
  double jump_from = 0, jump_to = 0;
};

// The LCP of one step (the first one handed to the LCP solver in that step, else the first
// transform at a starting mode whose solution changes the mode, else the first transform), with
// where it came from.
struct CapturedLcp {
  solvers::StepLcp lcp;
  long step = 0;             // 1 = the first step
  double t = 0, t_next = 0;  // the step's interval
  double theta_h = 0;        // θh of the step matrix W = G + E/(θh)
};

// How the run ended (solvers::RunOutcome, in the vocabulary of solvers/status.hpp): kSolved;
// kInaccurate when steps were accepted above the error tolerance (see warnings); kInvalidInput for
// settings rejected before the first step; a failure status otherwise, with the message (what
// happened, at which time and step), summary.time and the devices involved.
// A converted SPICE junction whose current left the range of its PWL fit during the run
// (pwl_range_check.hpp: above imax, or below imin off the error bound), with the range of a fit
// that covers what the run met: the run command fits the model again over it and repeats the run.
struct PwlRangeMiss {
  std::string model;          // lower-case name
  std::string warning;        // the warning given for it (in TransientResult::warnings)
  std::string met;            // what the run met: "q1's B-E current reached 0.155 A"
  double imin = 0, imax = 0;  // the range that covers it [A, at area 1]
  bool user_range = false;    // the range left was set by the user (.options pwlimax/pwlimin)
};

// A SPICE diode whose PWL junction charge, or a VDMOS whose PWL gate-drain charge CGD, moved a
// charge off SPICE's that matters against the circuit's currents
// (circuit/src/junction_charge_check.hpp): refit it over [lowest, 0].
struct JunctionChargeMiss {
  std::string device, model;   // lower-case names
  std::string kind = "diode";  // "diode", or "MOSFET" (a VDMOS's CGD, of v_gd)
  std::string met;             // "its PWL junction charge (151 pF below 0 V) moved 45 % ..."
  double lowest = 0;           // the lowest junction voltage (v_gd) of the run [V]
};

// A MOSFET whose LAMBDA factor F left its current off ngspice's by more than the tolerance on
// average (circuit/src/mos_lambda_check.hpp): run again with F = factor.
struct LambdaMiss {
  std::string device, model;  // lower-case names (the .model card's)
  std::string met;            // "while its channel conducted, 1 + λ·|v_ds| was ..."
  double factor = 1;          // the run's charge-weighted 1 + λ·|v_ds|
};

struct TransientResult : solvers::RunOutcome {
  bool stopped = false;   // the observer asked to stop (an interrupt): ok, but t_end < TSTOP
  double t_end = 0;       // last accepted time
  long points = 0;        // points handed to the observer (accepted points and dense output)
  std::string step_rule;  // how the steps were chosen, for the run report
  std::vector<std::string> warnings;              // what the run approximated, with numbers
  std::vector<PwlRangeMiss> range_misses;         // junctions that left their PWL fit's range
  std::vector<JunctionChargeMiss> charge_misses;  // junction charges off SPICE's
  std::vector<LambdaMiss> lambda_misses;          // MOSFETs whose LAMBDA factor was off
  solvers::RunStats stats;
  bool shared_analysis = false;  // the θ-stepper factored with TransientOptions::analyses
  double h = 0, theta = 0;
  std::optional<CapturedLcp> captured;  // when TransientOptions asked for a dump
  TranMethod method = TranMethod::kTheta;
  // Event-driven runs: the event log and the integrator's statistics.
  std::vector<EventLogEntry> events;
  solvers::EventStats event_stats;
  double event_rtol = 0;
};

// Called with every accepted point at or after TSTART (t0 included), with the scheme's
// derivative x' there (SignalTable's rate signals); returning false stops the run after that
// point (TransientResult::stopped): the hook through which `run` honours SIGINT/SIGTERM and a
// full disk (app/cli/interrupt.hpp).
using Observer = std::function<bool(double t, const Eigen::VectorXd& x,
                                    const Eigen::VectorXd& lambda, const Eigen::VectorXd& xdot)>;

TransientResult run_transient(const Circuit& circuit, const Assembled& assembled,
                              const TransientOptions& options, const Observer& observer);

// The event-driven run (transient_event.cpp); run_transient calls it for method event.
TransientResult run_event_transient(const Circuit& circuit, const Assembled& assembled,
                                    const TransientOptions& options, const Observer& observer);

}  // namespace nsspice::circuit
