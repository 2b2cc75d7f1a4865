#pragma once
// Small-signal (AC) solution of the MLCS about a fixed mode σ (docs/theory.md, "AC analysis").
// With every pair's mode frozen at σ (its operating-point value), the complementarity becomes
// linear, and the phasors (X, Λ) of x and λ at angular frequency ω solve
//
//   [ G + jωE     −B  ] [X]   [ U ]       U = S s_ac  (the sources' AC phasors)
//   [ R_σ         E_σ ] [Λ] = [ 0 ]
//
// row j of (R_σ, E_σ): pair j conducting (j ∈ σ):  C_j X + D_j Λ = 0    (w_j stays 0)
//                      pair j not conducting:       C_off_j X + Λ_j = 0 (free pairs: Λ_j = 0)
//
// which is the mode matrix K(σ) of solvers/lcp/mode_mlcp.hpp with W = G + jωE and the
// constant offsets d dropped (they do not vary). One sparsity pattern for every ω: the
// pattern is analyzed once and each frequency is one numeric complex LU (Eigen SparseLU).
// Every solution is checked by its residual ‖K u − ρ‖∞ / (‖K‖∞ ‖u‖∞ + ‖ρ‖∞), computed apart
// from the factorization.
#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <Eigen/SparseLU>
#include <complex>
#include <vector>

#include "solvers/mlcs.hpp"

namespace nsspice::solvers {

using ComplexSparse = Eigen::SparseMatrix<std::complex<double>, Eigen::ColMajor, int>;

class SmallSignal {
 public:
  // `mode[j]` = 1: pair j conducts (for a forced pair: the switch is on).
  SmallSignal(const Mlcs& mlcs, const std::vector<char>& mode);
  // Solves at angular frequency ω ≥ 0 for the excitation U (size n). False when K is
  // singular at this ω (e.g. ω = 0 with a node reached only through capacitors).
  bool solve(double omega, const Eigen::VectorXcd& u, Eigen::VectorXcd& x,
             Eigen::VectorXcd& lambda);
  double residual() const { return residual_; }  // of the last successful solve

 private:
  int n_, m_;
  ComplexSparse k_;             // K at the last ω (pattern fixed)
  std::vector<double> k0_, e_;  // per stored entry: the ω-independent part, the E part
  Eigen::SparseLU<ComplexSparse> lu_;
  bool analyzed_ = false;
  double residual_ = 0;
};

}  // namespace nsspice::solvers
