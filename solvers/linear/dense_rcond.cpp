// Reciprocal condition estimate from a dense LU (dense_rcond.hpp): Eigen's rcond_estimate_helper
// and rcond_invmatrix_L1_norm_estimate for a real PartialPivLU, step for step, without their
// temporaries.
#include "solvers/linear/dense_rcond.hpp"

#include <algorithm>
#include <limits>

namespace nsspice::solvers {

double LuRcond::l1_norm(const Eigen::MatrixXd& a) {
  return a.cols() > 0 ? a.cwiseAbs().colwise().sum().maxCoeff() : 0.0;
}

void LuRcond::solve(const Lu& lu) {
  // PartialPivLU::_solve_impl: c = P b, then L (unit lower) and U in place.
  tmp_.noalias() = lu.permutationP() * v_;
  lu.matrixLU().triangularView<Eigen::UnitLower>().solveInPlace(tmp_);
  lu.matrixLU().triangularView<Eigen::Upper>().solveInPlace(tmp_);
  v_.swap(tmp_);
}

void LuRcond::solve_transposed(const Lu& lu) {
  // PartialPivLU::_solve_impl_transposed: Uᵀ then Lᵀ in place, then Pᵀ.
  tmp_ = v_;
  lu.matrixLU().triangularView<Eigen::Upper>().transpose().solveInPlace(tmp_);
  lu.matrixLU().triangularView<Eigen::UnitLower>().transpose().solveInPlace(tmp_);
  v_.noalias() = lu.permutationP().transpose() * tmp_;
}

double LuRcond::inverse_l1_estimate(const Lu& lu) {
  const Eigen::Index n = lu.rows();
  v_.setConstant(n, 1.0 / static_cast<double>(n));
  solve(lu);
  double lower_bound = v_.lpNorm<1>();
  if (n == 1) return lower_bound;
  // Gradient ascent towards the unit vector e_j that maximizes ‖A⁻¹ e_j‖₁.
  double old_lower_bound = lower_bound;
  Eigen::Index v_max_abs_index = -1, old_v_max_abs_index = -1;
  sign_.resize(n);
  for (int k = 0; k < 4; ++k) {
    for (Eigen::Index i = 0; i < n; ++i) sign_[i] = v_[i] < 0.0 ? -1.0 : 1.0;
    if (k > 0 && sign_ == old_sign_) break;  // stagnated
    v_ = sign_;
    solve_transposed(lu);
    v_.cwiseAbs().maxCoeff(&v_max_abs_index);
    if (v_max_abs_index == old_v_max_abs_index) break;
    v_.setZero(n);
    v_[v_max_abs_index] = 1.0;
    solve(lu);
    lower_bound = v_.lpNorm<1>();
    if (lower_bound <= old_lower_bound) break;
    old_sign_ = sign_;
    old_v_max_abs_index = v_max_abs_index;
    old_lower_bound = lower_bound;
  }
  // Higham's test vector v_i = (−1)^i (1 + i/(n − 1)), for the cancellations Hager's misses.
  double alternating_sign = 1.0;
  for (Eigen::Index i = 0; i < n; ++i) {
    v_[i] = alternating_sign * (1.0 + static_cast<double>(i) / static_cast<double>(n - 1));
    alternating_sign = -alternating_sign;
  }
  solve(lu);
  const double alternate_lower_bound = (2 * v_.lpNorm<1>()) / (3 * static_cast<double>(n));
  return std::max(lower_bound, alternate_lower_bound);
}

double LuRcond::operator()(const Lu& lu, double a_l1_norm) {
  if (lu.rows() == 0) return std::numeric_limits<double>::infinity();
  if (a_l1_norm == 0.0) return 0.0;
  if (lu.rows() == 1) return 1.0;
  const double inverse_norm = inverse_l1_estimate(lu);
  return inverse_norm == 0.0 ? 0.0 : (1.0 / inverse_norm) / a_l1_norm;
}

}  // namespace nsspice::solvers
