#pragma once
// Reciprocal condition estimate of a dense matrix A from its LU factors P A = L U:
//
//   rcond(A) = 1 / (‖A‖₁ · est ‖A⁻¹‖₁),
//
// est by Hager's gradient ascent with Higham's alternating-sign test vector (Algorithms 4.1 and
// 5.1 of N. J. Higham, "FORTRAN codes for estimating the one-norm of a real or complex matrix,
// with applications to condition estimation", ACM TOMS 14(4), 381–396, 1988): at most 4
// iterations of one solve with A and one with Aᵀ, and 2 more solves, O(n²) each. est ≤ ‖A⁻¹‖₁,
// so rcond is an upper bound of 1/κ₁(A).
//
// This is Eigen's PartialPivLU::rcond() operation for operation (Eigen/src/Core/
// ConditionEstimator.h, Eigen 3.4: the same solves, sums and tests in the same order, hence the
// same value), on vectors kept between calls: Eigen's allocates about six vectors per call, more
// than the arithmetic costs for the small Schur complements of the mode iteration.
#include <Eigen/Core>
#include <Eigen/LU>

namespace nsspice::solvers {

class LuRcond {
 public:
  using Lu = Eigen::PartialPivLU<Eigen::MatrixXd>;
  // rcond of A given its factor and ‖A‖₁ (l1_norm(A), as PartialPivLU::compute takes it).
  double operator()(const Lu& lu, double a_l1_norm);
  // ‖A‖₁ = max_j Σ_i |A_ij|, by the expression PartialPivLU::compute evaluates.
  static double l1_norm(const Eigen::MatrixXd& a);

 private:
  double inverse_l1_estimate(const Lu& lu);
  void solve(const Lu& lu);             // v_ ← A⁻¹ v_
  void solve_transposed(const Lu& lu);  // v_ ← A⁻ᵀ v_
  Eigen::VectorXd v_, tmp_, sign_, old_sign_;
};

}  // namespace nsspice::solvers
