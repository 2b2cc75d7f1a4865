#pragma once
// The analyses besides the transient (docs/analyses.md; math in docs/theory.md, "Operating
// point, DC sweep and AC analysis"):
//
//   .op   the static MLCP  G x − B λ = S s(0),  w = C x + D λ + d,  0 ≤ w ⊥ λ ≥ 0
//         (capacitors open, inductors shorted, sources at t = 0; .ic is not held: it is a
//         transient's initial condition);
//   .dc   the same MLCP for every value of the swept source(s), warm-started point to point;
//   .ac   the phasors at each frequency with every pair's mode frozen at its .op value
//         (solvers/time/small_signal.hpp), excited by the sources' AC mag/phase.
// Results go to observers point by point; the caller evaluates the signals (SignalTable is
// linear in (x, λ), so it evaluates the real and imaginary parts of the phasors alike).
#include <Eigen/Core>
#include <complex>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "circuit/assemble.hpp"
#include "circuit/circuit.hpp"
#include "solvers/status.hpp"

namespace nsspice::circuit {

struct StaticSolution {
  Eigen::VectorXd x, lambda;
  std::vector<char> mode;  // per pair: 1 = conducting (switches: on)
};

// How an analysis ended (solvers::RunOutcome): kSolved, kInvalidInput (nothing to analyse, a sweep
// the circuit cannot do), or the failed solve's status with the message (where: sweep value or
// frequency).
struct AnalysisResult : solvers::RunOutcome {
  long points = 0;  // points delivered to the observer
  long pivots = 0;  // pivoting steps of the static MLCP solves (.op, .dc)
  long mode_changes = 0;
  double max_residual = 0;         // .ac: the largest relative residual of the complex solves
  std::vector<std::string> notes;  // how the answer was found, where it matters (printed as notes)
  std::vector<std::string> warnings;  // what the answer approximated, with numbers (.dc: the PWL
                                      // fits' ranges left, pwl_range_check.hpp)
};

// The DC operating point. !result.ok when the static MLCP has no solution found.
AnalysisResult operating_point(const Circuit& circuit, const Assembled& assembled,
                               StaticSolution& out);

// Every value of `circuit.dc` (inner sweep fastest): observer(values, x, λ) with values[k] the
// value of sweep k. Stops at the first point without a solution. Source sweeps only: a sweep
// over a .param (DcSweepSpec::parameter) is !ok here (the app rebuilds the circuit per value).
using DcObserver = std::function<void(std::span<const double> sweep, const Eigen::VectorXd& x,
                                      const Eigen::VectorXd& lambda)>;
AnalysisResult dc_sweep(const Circuit& circuit, const Assembled& assembled,
                        const DcObserver& observer);
// The values of one sweep: start + k·step, k = 0..points−1.
double dc_value(const DcSweepSpec& sweep, long k);

// The frequencies of an .ac card, as ngspice spaces them: DEC/OCT  f_k = F1·r^k (r = 10^(1/N),
// 2^(1/N)) up to F2 (within 1e-9 relative); LIN  N points from F1 to F2 (F1 alone for N = 1).
std::vector<double> ac_frequencies(const AcSpec& spec);

// For .ac: every converted SPICE junction's depletion charge (a diode's CJO, a bipolar
// transistor's CJE and CJC, a VDMOS's CGD) made the linear capacitance SPICE's small-signal
// model has at the operating point `op` (of this circuit: no capacitance moves it), dQ/dv there,
// instead of the transient's PWL charge (a chord over the reverse swing). Returns a note saying
// how many and the largest change, or "" (none). The circuit's structure (nodes, pairs) is
// kept, only capacitances change, so `op` is the operating point of the result too
// (circuit/src/ac_junction_charges.cpp).
std::string small_signal_charges(Circuit& circuit, const StaticSolution& op);
// For .ac: every converted SPICE MOSFET with LAMBDA (level 1, VDMOS) conducting at `op` gets
// its output conductance λ·I_0 there, SPICE's g_ds beyond the PWL channel's slope (its LAMBDA
// is the constant factor 1 + λ·|v_ds0|), as a resistor "<m>.gds" from drain to source (no new
// unknowns: `op` and the signals stay those of the circuit). Returns a note saying how many and
// the largest, or "" (none).
std::string small_signal_output_conductances(Circuit& circuit, const StaticSolution& op);

// The small-signal response at every frequency of `circuit.ac`, about the operating point `op`.
// observer(f, X, Λ). !ok when no source has an AC magnitude or the system is singular at some
// frequency.
using AcObserver =
    std::function<void(double f, const Eigen::VectorXcd& x, const Eigen::VectorXcd& lambda)>;
AnalysisResult ac_sweep(const Circuit& circuit, const Assembled& assembled,
                        const StaticSolution& op, const AcObserver& observer);

}  // namespace nsspice::circuit
