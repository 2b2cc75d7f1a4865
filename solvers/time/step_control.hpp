#pragma once
// Local error control of the θ-scheme (docs/theory.md, "Step selection"; symbols of
// docs/formulation.md).
//
// The local truncation error of one θ-step of size h on a smooth solution is
//
//   τ = (½ − θ) h² x'' + (1/6 − θ/2) h³ x''' + O(h⁴)      (θ = ½: −h³x'''/12, θ = 1: −h²x''/2)
//
// and that of each substep of a backward-Euler step made of s substeps τ_s = (h/s)² x''/2. The
// derivatives are estimated by divided differences over the last points of the current smooth
// phase (no source breakpoint, switching instant or state jump between them):
//
//   x'' ≈ 2 x[t_k, t_{k−1}, t_{k−2}],      x''' ≈ 6 x[t_k, t_{k−1}, t_{k−2}, t_{k−3}].
//
// The exact solution satisfies the step's equations up to the residual E τ/(θh) in the
// differential rows, so the error it leaves in the step's solution is (Shampine's filtered
// estimate)
//
//   δ = K(σ)⁻¹ [E τ/(θh); 0]      (s substeps: δ = s K_s(σ)⁻¹ [E τ_s/h_s; 0]),
//
// with the step's own factored mode matrix (mode_mlcp.hpp): an unknown fixed algebraically in
// the mode (a node driven by a source, a capacitor behind a conducting diode) gets no error. A
// step is accepted when
//
//   err = max_i |δ_i| / (RELTOL^{3/2} · peak_i + ATOL_i) ≤ 1
//
// for the unknowns that carry a state (a nonzero column of E: capacitor voltages, inductor
// currents). This is an error per step, as in SPICE, so that the cost per unit of simulated time
// does not depend on the run's length; its local tolerance is RELTOL^{3/2} rather than RELTOL so
// that the global error of the second-order scheme is about RELTOL · peak_i: with local errors
// C h³ = tol, the N ∝ tol^{−1/3} steps over which errors add up give a global error ∝ tol^{2/3}
// (tolerance proportionality, Söderlind & Wang 2006), and tol = RELTOL^{3/2} makes it ∝ RELTOL.
// The absolute part ATOL_i also keeps the rounding errors of very short steps from counting,
// down to a rounding floor: the step's equations hold terms E x/(θh) that grow as h shrinks, each
// rounded to ε|E||x|/(θh) (ε the machine epsilon), which its own mode matrix carries into the
// unknowns as
//
//   ν = K(σ)⁻¹ [|E| ε peak/(θh); 0]     (s substeps: h/s for θh).
//
// The estimates' difference stencils amplify noise of that size by at most 2s (second
// differences over equal substeps, times s), so that an error within F_i = 2s|ν_i| is rounding,
// not truncation: tol_i gets F_i added (a current through a large capacitor at a femtosecond step
// is the difference of two volt-sized node voltages over the step, rounding noise of nA against
// ABSTOL's pA).
// The other unknowns (currents of sources and diodes, nodes without capacitance) do not
// accumulate errors: their δ_i is measured against RELTOL · peak_i + ATOL_i. peak_i is the
// largest |x_i| of the run so far (the signal's scale); ATOL_i is VNTOL for a voltage, ABSTOL
// for a current (the circuit layer adds the CHGTOL floors). The next step is
//
//   h' = h · clamp(0.9 err^(−1/p), 0.2, 2),   p = 3 for θ = ½ (δ ∝ h³), 2 otherwise,
//
// rounded down onto the ladder 2^(k/8) s, so that step sizes repeat and the factorizations of
// W = G + E/(θh) kept per step size are reused.
#include <Eigen/Core>
#include <array>
#include <span>
#include <vector>

#include "solvers/mlcs.hpp"

namespace nsspice::solvers {

// A point of the trajectory: time and all unknowns.
struct TrajectoryPoint {
  double t = 0;
  const Eigen::VectorXd* x = nullptr;
};

class ErrorEstimator {
 public:
  // `atol`: per unknown (size n).
  ErrorEstimator(const SparseMatrix& E, Eigen::VectorXd atol, double reltol);

  // A discontinuity at the last point: the phase restarts from (t, x).
  void restart(double t, const Eigen::VectorXd& x);
  // An accepted point of the current phase (also updates the peaks).
  void accept(double t, const Eigen::VectorXd& x);

  // τ (header) of the step of size h that the candidate points end, after the phase's points:
  // one point for a θ-step, the s substep points for a backward-Euler step of s substeps (τ is
  // then that of one substep). `candidate_only`: the phase's points are not used (a state jump
  // precedes the candidate). False when there are too few points for the estimate.
  bool truncation(std::span<const TrajectoryPoint> candidate, double h, double theta, int substeps,
                  bool candidate_only, Eigen::VectorXd& tau) const;
  // err (header) of the error δ of a step ending at x_end; `floor`: the rounding floor F (header)
  // added to each tolerance.
  double norm(const Eigen::VectorXd& delta, const Eigen::VectorXd& x_end,
              const Eigen::VectorXd* floor = nullptr) const;
  // err of τ itself over the differential unknowns only: the estimate when the step's mode
  // matrix K(σ) is singular (a degenerate mode from pivoting, pairs at λ = w = 0), so that δ
  // cannot be filtered through it.
  double state_norm(const Eigen::VectorXd& tau, const Eigen::VectorXd& x_end) const;
  // The error of the dense output over the step that `end` ends (the quadratic through the
  // phase's last two points and `end`), against RELTOL · peak_i + ATOL_i for every unknown:
  // the output of unknowns without a state (a node driven by a source, a function of time with
  // a kink) is then as accurate as the states'. Negative without an estimate. `ringing` (when
  // given) is set when the error above tolerance is an algebraic unknown whose last three
  // differences alternate in sign: the trapezoidal rule's (−1)^k mode, which no step size
  // removes (the caller damps it with backward-Euler steps instead).
  double interpolation(const TrajectoryPoint& end, bool* ringing = nullptr,
                       const Eigen::VectorXd* floor = nullptr) const;
  // The right side of ν (header) for a step of θh (substep size for backward Euler):
  // |E| ε peak/(θh), with `e_abs` = |E|.
  void rounding_rhs(const SparseMatrix& e_abs, double theta_h, Eigen::VectorXd& rhs) const;

  // The next step from the accepted step h and its err (negative err: no estimate, h kept).
  static double propose(double h, double err, double theta);
  // The largest ladder value 2^(k/8) ≤ h.
  static double ladder_floor(double h);

  int phase_points() const { return count_; }
  static constexpr double kLadderSteps = 8.0;  // ladder values per factor 2

 private:
  Eigen::VectorXd atol_, peak_;
  std::vector<char> differential_;  // a nonzero column of E: the unknown carries a state
  double reltol_, state_reltol_;    // RELTOL, RELTOL^{3/2}
  std::array<double, 3> t_{};  // the last count_ (≤ 3) points of the phase, a ring from first_
  std::array<Eigen::VectorXd, 3> x_;
  int first_ = 0, count_ = 0;
  int since_restart_ = 0;  // points accepted after the phase's first
  void push(double t, const Eigen::VectorXd& x);
  // The last (≤ 4) points of the phase followed by the candidate's; returns their number.
  int last_points(std::span<const TrajectoryPoint> candidate, bool candidate_only,
                  std::array<double, 4>& ts, std::array<const Eigen::VectorXd*, 4>& xs) const;
};

}  // namespace nsspice::solvers
