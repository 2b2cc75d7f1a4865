#pragma once
// Transient analysis of an elaborated circuit: the initial point (DC operating point, or the
// UIC/.ic data), then the θ-scheme of solvers/time/theta_stepper.hpp step by step, handing
// every accepted point to an observer. Failures name the devices and the time.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "circuit/assemble.hpp"
#include "circuit/circuit.hpp"
#include "solvers/time/theta_stepper.hpp"

namespace nsspice::circuit {

// The signals written for a run: every unknown (node voltages, branch currents) and every
// device current derived from the multipliers (diodes, switches, MOS drains), in that order.
struct SignalTable {
  std::vector<std::string> names;
  std::vector<DerivedSignal> derived;
  void evaluate(const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
                std::vector<double>& out) const;
};
SignalTable make_signals(const Circuit& circuit, const Assembled& assembled);

struct TransientOptions {
  std::optional<double> theta;  // overrides .options theta
  std::optional<double> h;      // overrides the step from .tran
  int restart_steps = 2;
  bool restart_on_jump = true;
  std::optional<solvers::LcpSolverKind> lcp_solver{};  // overrides .options lcpsolver
  bool block_flip = true;             // false: every mode change is found by the LCP solver (tests)
  long dump_step = 0;                 // > 0: capture the LCP of this step (1 = the first step)
  std::optional<double> dump_time{};  // capture the LCP of the first step ending at or after it
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

struct TransientResult {
  bool ok = false;
  std::string error;  // when !ok: what happened, where, which devices
  double t_end = 0;   // last accepted time
  long points = 0;    // points handed to the observer
  solvers::RunStats stats;
  double h = 0, theta = 0;
  std::optional<CapturedLcp> captured;  // when TransientOptions asked for a dump
};

// Called with every accepted point at or after TSTART (t0 included); returning false stops.
using Observer =
    std::function<bool(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& lambda)>;

TransientResult run_transient(const Circuit& circuit, const Assembled& assembled,
                              const TransientOptions& options, const Observer& observer);

}  // namespace nsspice::circuit
