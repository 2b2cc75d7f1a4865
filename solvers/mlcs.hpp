#pragma once
// The mixed linear complementarity system (MLCS) produced by modified nodal analysis
// (docs/formulation.md §1, symbols as there):
//
//   E x'(t) + G x(t) = B λ(t) + b(t),      b(t) = S s(t)   (s: values of the independent sources)
//   w(t) = C x(t) + D λ(t) + d
//   0 ≤ w(t) ⊥ λ(t) ≥ 0
//
// x ∈ R^n (node voltages, branch currents), λ, w ∈ R^m (one complementarity pair per
// nonsmooth branch). A = −G in the notation of AB08 Def. 4.4. This layer knows nothing of
// circuits: the source values and their breakpoints come in as callbacks.
#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <functional>
#include <limits>

namespace nsspice::solvers {

using SparseMatrix = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;

struct Mlcs {
  int n = 0;          // unknowns x
  int m = 0;          // complementarity pairs
  SparseMatrix E, G;  // n × n
  SparseMatrix B;     // n × m
  SparseMatrix C;     // m × n
  SparseMatrix D;     // m × m
  Eigen::VectorXd d;  // m
  // Externally switched pairs (ideal switches): forced[j] = 1. Their "on" row is the pair's
  // w_j = 0 (C_j x + D_jj λ_j + d_j = 0, e.g. v_a − v_b − RON i = 0) and their "off" row is
  // C_off_j x + λ_j = 0 (e.g. i − GOFF (v_a − v_b) = 0). Free pairs have C_off_j = 0.
  SparseMatrix C_off;        // m × n
  std::vector<char> forced;  // m (empty: none)
  // Kink pairs: kink[j] = 1 when free pair j is one segment of a continuous piecewise-linear
  // characteristic (a SPICE model's PWL fit): D_jj > 0 and no other pair in row or column j of
  // D, so that λ_j = max(0, −(C_j x + d_j)/D_jj) is a Lipschitz function of x. Its mode change
  // leaves x, λ and y = B λ + b − G x continuous (a kink of the vector field, not a switch):
  // the θ-stepper takes it without a backward-Euler restart or a located instant
  // (theta_stepper.hpp). kink[j] = 2: a smooth kink, taken so whatever ThetaOptions::
  // smooth_kinks says (the knots of a depletion charge in segments below 0 V: each a modest step
  // of a smooth curve's slope). Empty: none.
  std::vector<char> kink;
  // Switch controls: the state of forced pair `pair` follows the signal s = c·x with
  // hysteresis: it turns on when s > on_above, off when s < off_below, and keeps its state in
  // between (SPICE semantics, on_above = VT + VH, off_below = VT − VH).
  struct SwitchControl {
    int pair = 0;
    Eigen::SparseVector<double> c;  // over x
    double on_above = 0, off_below = 0;
    bool initially_on = false;
    // The state after the control takes the value s, from `previous` (hysteresis).
    bool next_state(double s, bool previous) const {
      return s > on_above ? true : s < off_below ? false : previous;
    }
  };
  std::vector<SwitchControl> switches;
  SparseMatrix S;  // n × (number of sources)
  // Fills s(t) (size S.cols()).
  std::function<void(double t, Eigen::Ref<Eigen::VectorXd> s)> source_values;
  // Smallest source breakpoint strictly after t (+inf if none).
  std::function<double(double t)> next_breakpoint;

  // b(t) = S s(t).
  void eval_b(double t, Eigen::VectorXd& s_scratch, Eigen::VectorXd& b) const {
    b.setZero(n);
    if (S.cols() == 0) return;
    s_scratch.resize(S.cols());
    source_values(t, s_scratch);
    b.noalias() = S * s_scratch;
  }
  double breakpoint_after(double t) const {
    return next_breakpoint ? next_breakpoint(t) : std::numeric_limits<double>::infinity();
  }
};

}  // namespace nsspice::solvers
