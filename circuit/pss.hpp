#pragma once
// Periodic steady state by shooting (docs/analyses.md, "PSS"; docs/theory.md §13).
//
// Φ: x0 ↦ x(T) is one period of the fixed-step θ-scheme started at t = 0 from x0 (q0 = E x0,
// restart steps at t = 0 as at any source breakpoint), with the sources periodic in T. Only the
// differential unknowns x_D (the columns of E with an entry: capacitor node voltages, inductor
// currents) carry state; the periodic orbit is a zero of
//
//   F(x_D) = Φ(x0)_D − x_D,
//
// solved by Newton's method  (J − I) Δ = −F  with damping (the step halved, at most 3 times,
// while ‖F‖∞ does not decrease; when no step decreases it, 5 periods of plain transient). J = ∂Φ_D/∂x_D is, in this first version, a FORWARD FINITE DIFFERENCE (one extra
// period per differential unknown, relative perturbation 1e-7), not the exact PWL Jacobian
// (the product of the per-step matrices of the period's mode sequence with the saltation
// terms): see docs/analyses.md. Before Newton, `warmup_periods` periods of the map let the
// mode sequence settle. Converged when, from the orbit's start x(T), one more period returns
// within ‖x(2T) − x(T)‖∞ ≤ tol·max(‖x(T)‖∞, floor) (floor 1e-9 V/A), full x compared.
#include <Eigen/Core>
#include <functional>
#include <string>
#include <vector>

#include "circuit/assemble.hpp"
#include "circuit/circuit.hpp"

namespace nsspice::circuit {

struct PssOptions {
  double period = 0;          // T [s] > 0
  long steps_per_period = 0;  // h = T / steps (0: from the .tran step, else 1000)
  double tol = 1e-9;          // relative periodicity ‖x(T) − x(0)‖∞ / ‖x‖∞
  int warmup_periods = 5;
  int max_newton = 30;
  // Periods of plain transient (the map iterated from the operating point) to count how many
  // a transient needs to reach `tol`: at most this many (0: not measured).
  long max_transient_periods = 0;
  std::string validate() const;
};

struct PssResult {
  bool ok = false;
  std::string error;              // why there is no orbit: the cause and the best state reached
  Eigen::VectorXd x0, lambda0;    // the orbit's state at t = 0 (mod T)
  std::vector<char> mode0;
  double h = 0, theta = 0.5;
  int newton_iterations = 0;
  long periods_simulated = 0;     // every period of the map run (warm-up, FD columns, checks)
  long fallback_periods = 0;      // plain transient periods taken where no damped Newton step
                                  // decreased ‖F‖ (among periods_simulated)
  double residual = 0;            // final ‖x(T) − x(0)‖∞ / ‖x‖∞
  std::vector<double> history;    // ‖F‖∞ relative, per Newton iteration
  long transient_periods = -1;    // periods the iterated map needed (−1: not reached / measured)
};

PssResult periodic_steady_state(const Circuit& circuit, const Assembled& assembled,
                                const PssOptions& options);

// The periods the plain transient (the map iterated from the initial point) needs until one period
// repeats the last to options.tol; −1 when options.max_transient_periods do not suffice.
long periods_to_settle(const Circuit& circuit, const Assembled& assembled,
                       const PssOptions& options);

// `periods` periods of the map from the orbit's start, every step to observer(t, x, λ)
// (t from 0 to periods·T, the start included). False with `error` if a step fails.
bool run_periods(const Circuit& circuit, const Assembled& assembled, const PssResult& pss,
                 double period, int periods,
                 const std::function<void(double, const Eigen::VectorXd&,
                                          const Eigen::VectorXd&)>& observer,
                 std::string& error);

}  // namespace nsspice::circuit
