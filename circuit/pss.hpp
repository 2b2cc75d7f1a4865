#pragma once
// Periodic steady state by shooting (docs/analyses.md, "PSS"; docs/theory.md §13).
//
// Φ: x0 ↦ x(T) is one period of a time integrator started at t = 0 from x0, with the sources
// periodic in T. Only the differential unknowns x_D (the columns of E with an entry: capacitor
// node voltages, inductor currents) carry state; the periodic orbit is a zero of
//
//   F(x_D) = Φ(x0)_D − x_D,
//
// solved by Newton's method  (J − I) Δ = −F  with damping (the step halved, at most 3 times,
// while ‖F‖∞ does not decrease; when no step decreases it, 5 periods of plain transient).
// Two maps (circuit/src/pss_map.hpp):
//   kEvent (default): the event-driven integrator with fixed Radau IIA steps h = T/N and every
//     switching instant located; J = ∂Φ_D/∂x_D is exact: the product of the per-mode transition
//     matrices with the saltation of every state-dependent switching instant
//     (circuit/src/pss_linearize.hpp; docs/theory.md §14);
//   kTheta: the fixed-step θ-scheme (the map of a fixed-step .tran); J by forward differences
//     (one extra period per differential unknown, relative perturbation 1e-7).
// Before Newton, `warmup_periods` periods of the map let the mode sequence settle. Converged
// when, from the orbit's start x(T), one more period returns within
// ‖x(2T) − x(T)‖∞ ≤ tol·max(‖x(T)‖∞, floor) (floor 1e-9 V/A), full x compared. The orbit's
// Floquet multipliers (the eigenvalues of J there) say whether a transient settles to it.
//
// With a trigger (self-oscillating and variable-frequency circuits: every source constant), the
// period T is an unknown too and the orbit starts where the trigger signal s = γᵀx_D crosses
// `level` in the given direction (circuit/src/pss_trigger.cpp states the augmented Newton system
// and its T column ẋ_D(T)).
#include <Eigen/Core>
#include <complex>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "circuit/assemble.hpp"
#include "circuit/circuit.hpp"
#include "solvers/status.hpp"

namespace nsspice::circuit {

enum class PssMap { kEvent, kTheta };

// Why no orbit was returned (PssResult::failure), finer than the status: each cause has its
// status in the vocabulary of solvers/status.hpp (status_of), except kStep, whose status is the
// failed step's own (the MLCP's: numerical failure, no convergence, infeasible).
enum class PssFailure {
  kNone,
  kInput,          // bad options, a source not periodic in T, a trigger that is not a state:
                   // invalid input
  kInitialPoint,   // no initial point (the operating point's static solve failed): its status
  kStep,           // a step of a period has no solution: the step's status
  kNoOrbit,        // Newton does not converge on a settled mode sequence: no convergence (a
                   // multiplier 1 with a drift along it: infeasible, no orbit exists)
  kModeSequence,   // the mode sequence changes from iteration to iteration: no convergence
  kSubharmonic,    // two periods return where one does not (or the orbit found is unstable
                   // with a multiplier below −1: a period-doubling): infeasible
  kUnstable,       // the period-T orbit exists but a multiplier is outside the unit circle:
                   // infeasible (no period-T steady state a transient settles to)
  kNotIsolated,    // J − I singular: a multiplier 1 (a free integrator, a family of orbits):
                   // numerical failure (a singular matrix)
  kLinearization,  // the exact Jacobian is not defined (an accumulation of events, grazing):
                   // numerical failure
  kNoCrossing,     // trigger: the signal does not cross the level in the direction after the
                   // warm-up (no oscillation, or the level outside the signal's range):
                   // infeasible
  kPeriod,         // trigger: the period does not converge (it grows or shrinks without bound,
                   // or the orbit found does not cross the trigger in the given direction): no
                   // convergence
};
const char* to_string(PssFailure failure);
// The status of a failure cause (kStep and kInitialPoint: numerical failure, their callers pass
// the solve's own status instead).
solvers::Status status_of(PssFailure failure);

// The trigger of an autonomous PSS: the orbit starts where `signal` (an unknown that is a state:
// "v(node)" of a node with a capacitor, "v(a,b)", "i(l1)") crosses `level` rising or falling.
struct PssTrigger {
  std::string signal;
  double level = 0;
  bool level_given = true;  // false: the middle of the signal's range over the last 4 guessed
                            // periods watched after the warm-up
  bool rising = true;
};

struct PssOptions {
  double period = 0;  // T [s] > 0 (with a trigger: the guess of T)
  PssMap map = PssMap::kEvent;
  long steps_per_period = 0;  // h = T / steps (0: event map 200; θ map from the .tran step,
                              // else 1000)
  double tol = 1e-9;          // relative periodicity ‖x(T) − x(0)‖∞ / ‖x‖∞
  int warmup_periods = 5;
  int max_newton = 30;
  bool finite_difference = false;  // event map: the forward-difference Jacobian (a check)
  // Event map: the mode-selection step δ as a fraction of T (0: automatic, 1e-9; 1e-5 where
  // the selections at 1e-9 end in an accumulation of events: pss_event_map.cpp).
  double select_step = 0;
  // Periods of plain transient (the map iterated from the operating point) to count how many
  // a transient needs to reach `tol`: at most this many (0: not measured).
  long max_transient_periods = 0;
  std::optional<PssTrigger> trigger;  // set: T is an unknown (pss_trigger.cpp)
  double stabilization = 0;  // trigger: warm-up time [s] before crossings are sought (0: the
                             // warm-up periods of the guessed T)
  std::string validate() const;
};

// How the shooting ended (solvers::RunOutcome): kSolved with the orbit; otherwise the status of
// the cause (status_of; a failed step's own status), the message (the cause and the best state
// reached), summary.time (the time within the period of a failed step) and summary.devices (its
// pairs or singular block), and `failure`, the PSS's own finer cause.
struct PssResult : solvers::RunOutcome {
  PssFailure failure = PssFailure::kNone;
  Eigen::VectorXd x0, lambda0;  // the orbit's state at t = 0 (mod T)
  std::vector<char> mode0;
  PssMap map = PssMap::kEvent;  // the map of the orbit (the event map after a theta fallback)
  double period = 0;            // T [s]: the given one, or the trigger's result
  std::vector<double> period_history;  // trigger: T per Newton iteration
  double trigger_level = 0;            // trigger: the level used (given, or the middle)
  // The theta map failed and the event map found the orbit instead: the theta map's failure.
  std::string theta_fallback;
  bool exact_jacobian = false;  // J from the linearization (else forward differences)
  double select_step = 0;       // the event map's δ/T (0: the θ map)
  long jacobian_fallbacks = 0;  // exact Jacobians replaced by forward differences, and why
  std::string fallback_reason;
  double h = 0, theta = 0.5;
  int newton_iterations = 0;
  // Newton iterations that updated a finite-difference Jacobian by Broyden's formula instead of
  // recomputing it (n_D periods each; pss_newton.cpp).
  int broyden_updates = 0;
  long periods_simulated = 0;   // every period of the map run (warm-up, FD columns, checks)
  long fallback_periods = 0;    // plain transient periods taken where no damped Newton step
                                // decreased ‖F‖ (among periods_simulated)
  double residual = 0;          // final ‖x(T) − x(0)‖∞ / ‖x‖∞
  std::vector<double> history;  // ‖F‖∞ relative, per Newton iteration
  long transient_periods = -1;  // periods the iterated map needed (−1: not reached / measured)
  // ln(tol/d0)/ln ρ: the periods a transient from the initial point needs by the linearization
  // (d0 its relative distance to the orbit, ρ the largest |μ|); 0 when not estimated.
  double transient_estimate = 0;
  // The Floquet multipliers: eigenvalues of J at the orbit (the event map: exact; the θ map:
  // of the finite-difference J), largest modulus first.
  std::vector<std::complex<double>> multipliers;

  using RunOutcome::fail;
  // Ends the result with `why` and its status_of (or the status given).
  void fail(PssFailure why, std::string message);
  void fail(PssFailure why, solvers::Status status, std::string message);
  // Ends the result with `why` and the status, time and devices of `cause` (a failed step, a
  // failed initial point), its message prefixed by `context` ("warm-up: ").
  void fail(PssFailure why, const solvers::Summary& cause, const std::string& context = {});
};

PssResult periodic_steady_state(const Circuit& circuit, const Assembled& assembled,
                                const PssOptions& options);

// The periods the plain transient (the map iterated from the initial point) needs until one period
// repeats the last to options.tol; −1 when options.max_transient_periods do not suffice.
long periods_to_settle(const Circuit& circuit, const Assembled& assembled,
                       const PssOptions& options);

// "" when every source of the circuit is constant over [0, horizon] (an autonomous circuit, as a
// trigger needs), else which source is not, and where.
std::string time_varying_source(const Circuit& circuit, const Assembled& assembled, double horizon);

// `periods` periods of the orbit's map (pss.map, pss.period) from the orbit's start, every output
// point to observer(t, x, λ) (t from 0 to periods·T, the start included). Solved, else the
// failed step's summary (or invalid input: the map's settings).
solvers::Summary run_periods(
    const Circuit& circuit, const Assembled& assembled, const PssResult& pss,
    const PssOptions& options, int periods,
    const std::function<void(double, const Eigen::VectorXd&, const Eigen::VectorXd&)>& observer);

}  // namespace nsspice::circuit
