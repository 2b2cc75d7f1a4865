#pragma once
// Stability of an equilibrium of the MLCS in a fixed mode σ (docs/theory.md, "Unstable
// operating points"). About a point where the sources are constant and every pair keeps its
// mode, the MLCS E ẋ = B λ + b − G x, with the pair rows of σ, is the linear DAE
//
//   [E 0] [ẋ]   [−G   B ] [x]
//   [0 0] [λ̇] = [ R_x R_λ] [λ] + const,
//
//   R = [C_j, D_j]   for a pair on in σ (w_j = 0; a switch closed likewise),
//       [0, e_jᵀ]    for a free pair off (λ_j = 0; its column drops out, λ_j ≡ 0),
//       [C_off_j, e_jᵀ] for a switch open.
//
// Its solutions are sums of e^{μt} v over the finite generalized eigenvalues μ of the pencil
// (J, Ē) (J v = μ Ē v; the infinite ones are the algebraic constraints). Re μ > 0: a
// disturbance along v grows, the equilibrium is unstable (an oscillator's or a latch's DC
// operating point). The pencil over x and the pairs that are on (the pairs that are off are
// λ_j = 0 and drop out) is reduced onto the unknowns E touches (a sparse LU of the rest: the
// .cpp) and solved by the QZ algorithm (Eigen's GeneralizedEigenSolver), O(N³) for N those
// dynamic unknowns: done up to kMaxEquilibriumOrder of them.
#include <Eigen/Core>
#include <complex>
#include <optional>
#include <vector>

#include "solvers/mlcs.hpp"

namespace nsspice::solvers {

inline constexpr int kMaxEquilibriumOrder = 200;

struct GrowingMode {
  std::complex<double> mu;  // the eigenvalue of largest real part [1/s]
  // Its eigenvector: over x (max |v_i| = 1) and over the pairs (0 for the pairs off). For a
  // complex μ, Re(c·v) for any complex c is a real solution's value at t = 0.
  Eigen::VectorXcd x, lambda;
};

struct EquilibriumStability {
  // false: more than kMaxEquilibriumOrder dynamic unknowns, or the algebraic part singular in
  // this mode (a DAE of index above 1)
  bool checked = false;
  int order = 0;  // N, the dynamic unknowns
  // The finite eigenvalue of largest real part when that part exceeds `min_rate`.
  std::optional<GrowingMode> growing;
};

// `mode`: the equilibrium's mode (size m). `min_rate` [1/s]: growth rates at or below it are
// not reported (e.g. 1/(run span): a mode that grows less than e-fold over the run).
EquilibriumStability equilibrium_stability(const Mlcs& mlcs, const std::vector<char>& mode,
                                           double min_rate);

}  // namespace nsspice::solvers
