#pragma once
// Small-signal frequency response of a periodically switching circuit about its periodic steady
// state (docs/analyses.md, "Switching AC"; docs/theory.md §14).
//
// The source s is perturbed by δu(t) = Re(U e^{jωt}) about the orbit found by the PSS (event
// map). The perturbation obeys the linearized periodic system (circuit/src/pss_linearize.hpp:
// the mode DAEs along the orbit, the saltation of every state-dependent switching instant, the
// selections); its steady state is δz(t) = Re(U e^{jωt} p(t)) with p T-periodic, so that with
// Φ' the monodromy and Γ(ω) the response over one period from rest,
//
//   δx_D(0) = c,   (e^{jωT} I − Φ') c = Γ(ω)        (δx_D(T) = e^{jωT} δx_D(0)),
//
// and the response at the excitation frequency (what a network analyzer or a brute-force
// transient with a sine measures: the harmonic transfer function H_0) is
//
//   Z̄(ω) = (1/T) ∫₀ᵀ δz(t) e^{−jωt} dt  −  Σ_events (z⁺ − z⁻) δt_e e^{−jωt_e} / T.
//
// It holds at every ω (below and above fs/2; at a multiple of fs the response there adds to the
// orbit's own harmonic). For a circuit without switching it equals the .ac transfer function.
// A brute-force cross-check (check_by_transient) injects A sin(ωt) into a transient from the
// orbit and extracts the fundamental over whole periods of both T and 1/f.
#include <Eigen/Core>
#include <complex>
#include <functional>
#include <string>
#include <vector>

#include "circuit/assemble.hpp"
#include "circuit/circuit.hpp"
#include "circuit/pss.hpp"
#include "solvers/status.hpp"

namespace nsspice::circuit {

struct SwitchingAcOptions {
  int source = -1;                  // the perturbed source: an index of Assembled::sources
  std::vector<double> frequencies;  // [Hz] ≥ 0
  std::string validate(const Assembled& assembled) const;
};

// How the sweep ended (solvers::RunOutcome): kSolved; kInvalidInput (bad options, no periodic
// steady state of the event map to linearize about); kNumericalFailure where the linearization is
// not defined (an accumulation of events, a grazing instant, a singular mode) or e^{jωT} is a
// Floquet multiplier (the message names f); a failed step's own status.
struct SwitchingAcResult : solvers::RunOutcome {
  long points = 0;
  int state_events = 0;  // switching instants of the orbit that depend on the state
  int time_events = 0;   // mode changes at fixed instants (the period's start included)
  double max_residual = 0;  // largest ‖δx_D(T) − e^{jωT} δx_D(0)‖ / ‖δx_D(0)‖ of a frequency
};

// observer(f, X̄, Λ̄): the phasors per unit perturbation (the signals are linear in them).
using SwitchingAcObserver =
    std::function<void(double f, const Eigen::VectorXcd& x, const Eigen::VectorXcd& lambda)>;

// `pss`: an orbit found with `pss_options` on the event map.
SwitchingAcResult switching_ac(const Circuit& circuit, const Assembled& assembled,
                               const PssResult& pss, const PssOptions& pss_options,
                               const SwitchingAcOptions& options,
                               const SwitchingAcObserver& observer);

// The brute-force cross-check: for each requested f, f' = fs·p/q with the smallest q ≥ 3 (lowest
// terms) within frequency_tolerance of f (f' is no multiple of fs/2, where the measured response
// would mix in the orbit's harmonic or the conjugate input's sideband), A sin(2π f' t) added to the
// source, a transient (the event map's integrator, its steps) from the orbit's start, window after
// window of q periods until the fundamental (2j/(A·qT)) ∫ z(t) e^{−j2πf't} dt changes by less than
// settle_tol between windows, each component relative to its size (down to 1e-4 of the largest).
struct TransientCheckOptions {
  int source = -1;
  std::vector<double> frequencies;    // requested [Hz] > 0
  double amplitude = 0;               // A (the source's unit) > 0
  long max_q = 100000;                // the longest window, in periods
  double frequency_tolerance = 1e-2;  // |f' − f|/f allowed to keep the window short
  long max_periods = 20000;
  double settle_tol = 1e-4;
  std::string validate(const Assembled& assembled) const;
};

struct TransientCheckPoint {
  double f = 0;                // f' actually used [Hz]
  long p = 0, q = 0;           // f' = fs·p/q
  long periods = 0;            // switching periods simulated
  bool settled = false;        // the last two windows agreed to settle_tol
  Eigen::VectorXcd x, lambda;  // the fundamental per unit amplitude
  double scale = 0;  // its largest differential component (smaller ones settle to 1e-4 of it)
};

// How the check ended (solvers::RunOutcome): kSolved; kInaccurate when a frequency's fundamental
// did not settle within max_periods (its point has settled = false; the message names the
// frequencies); kInvalidInput (bad options, no periodic steady state); a failed step's status
// (summary.time: the check transient's time).
struct TransientCheckResult : solvers::RunOutcome {
  std::vector<TransientCheckPoint> points;
};

TransientCheckResult check_by_transient(const Circuit& circuit, const Assembled& assembled,
                                        const PssResult& pss, const PssOptions& pss_options,
                                        const TransientCheckOptions& options);

// The index of the independent source named `name` in Assembled::sources, −1 if none.
int source_index(const Circuit& circuit, const Assembled& assembled, const std::string& name);

}  // namespace nsspice::circuit
