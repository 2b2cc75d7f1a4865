// Kinks of continuous PWL characteristics in the θ-stepper (theta_stepper.hpp, "Kinks";
// docs/theory.md §11.6; symbols of docs/formulation.md).
//
// A kink pair j (Mlcs::kink: free, D_jj > 0, no other pair in row or column j of D) has
//
//   z_j = D_jj λ_j − w_j = −(C_j x + d_j),      λ_j = max(0, z_j)/D_jj,   w_j = max(0, −z_j),
//
// a Lipschitz function of x, so that a change of its mode leaves x, λ and y = B λ + b − G x
// continuous: only the slope of y jumps, where z_j crosses 0. The stepper then keeps the step's
// θ-solution (no located instant, no backward-Euler restart) and leaves its error to the
// estimate of step_control.hpp. That estimate assumes a smooth x''' and sees only about a
// twelfth of the O(h² Δẏ) error of a trapezoidal step across a kink, and a kink on a stiff
// branch (a small capacitance behind a resistor, time constant τ ≪ h) leaves a lag error
// τ·Δẋ that no step size above τ removes and the trapezoidal rule does not damp (R(∞) = −1):
// measured in docs/theory.md §11.6, the reason this is an option.
//
// Only with ThetaOptions::smooth_kinks, or for smooth kink pairs (Mlcs::kink = 2: a depletion
// charge's knots below 0 V, a modest slope step each); otherwise every pair's change is located
// as a switch's (theta_locate.cpp), and a kink pair takes its next segment at the located instant
// (theta_adaptive.cpp): its guard is zero there in either mode.
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "solvers/time/theta_stepper.hpp"

namespace nsspice::solvers {

void ThetaStepper::init_kinks() {
  // Mlcs::kink after checking its premise (a broken premise is the caller's bug).
  kink_.assign(static_cast<size_t>(mlcs_.m), 0);
  has_kinks_ = false;
  has_kink_pairs_ = false;
  has_smooth_pairs_ = false;
  if (mlcs_.kink.empty()) return;
  if (static_cast<int>(mlcs_.kink.size()) != mlcs_.m)
    throw std::invalid_argument("Mlcs::kink must have one entry per pair");
  std::vector<double> diag(static_cast<size_t>(mlcs_.m), 0.0);
  std::vector<char> coupled(static_cast<size_t>(mlcs_.m), 0);
  for (int j = 0; j < mlcs_.D.outerSize(); ++j)
    for (SparseMatrix::InnerIterator it(mlcs_.D, j); it; ++it) {
      if (it.row() == j) {
        diag[static_cast<size_t>(j)] += it.value();
      } else if (it.value() != 0.0) {
        coupled[static_cast<size_t>(j)] = coupled[static_cast<size_t>(it.row())] = 1;
      }
    }
  for (int j = 0; j < mlcs_.m; ++j) {
    const auto u = static_cast<size_t>(j);
    if (!mlcs_.kink[u]) continue;
    const bool forced = !mlcs_.forced.empty() && mlcs_.forced[u];
    if (forced || !(diag[u] > 0) || coupled[u])
      throw std::invalid_argument(fmt::format(
          "pair {} is marked a kink but is not a free pair with D_jj > 0 of its own", j));
    kink_[u] = mlcs_.kink[u] == 2 ? 2 : 1;
    has_kink_pairs_ = true;
    has_kinks_ = has_kinks_ || options_.smooth_kinks || kink_[u] == 2;
    has_smooth_pairs_ = has_smooth_pairs_ || kink_[u] == 2;
  }
}

bool ThetaStepper::kinks_only(const std::vector<char>& mode) const {
  if (!has_kinks_) return false;
  bool any = false;
  for (size_t j = 0; j < mode.size(); ++j) {
    if (mode[j] == mode_[j]) continue;
    if (!(kink_[j] == 2 || (kink_[j] == 1 && options_.smooth_kinks))) return false;
    any = true;
  }
  return any;
}

bool ThetaStepper::kink_pairs(const std::vector<int>& pairs) const {
  if (pairs.empty()) return false;
  return std::all_of(pairs.begin(), pairs.end(),
                     [&](int j) { return kink_[static_cast<size_t>(j)] != 0; });
}

bool ThetaStepper::switch_crossed(const Eigen::VectorXd& x) const {
  for (size_t k = 0; k < mlcs_.switches.size(); ++k) {
    const auto& sw = mlcs_.switches[k];
    if (sw.next_state(sw.c.dot(x), switch_on_[k]) != static_cast<bool>(switch_on_[k])) return true;
  }
  return false;
}

}  // namespace nsspice::solvers
