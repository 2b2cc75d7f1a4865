#pragma once
// Properties checked at every point of every run: complementarity (λ ≥ 0, w ≥ 0, λ·w ≈ 0,
// relative to the circuit's scale) and, for passive circuits, non-increasing stored energy.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <variant>

#include "helpers.hpp"

namespace nsspice::testing {

// λ_j ≥ −tol·Λ, w_j ≥ −tol·Ω and |λ_j w_j| ≤ tol·Λ·Ω, with Λ, Ω the largest |λ|, |w| of the run.
// A pair with its own resistance D_jj > 0 (a PWL segment: w_j = … − D_jj λ_j … in volts) has its
// w_j measured as the current it stands for, w_j/D_jj ≥ −tol·Λ: the mode check's rounding scale of
// w_j holds ‖D_j‖₁‖λ‖∞ (mode_mlcp.cpp), so a junction's first segment of 350 MΩ may show
// w = −1.4e-4 V at λ = 0 for a missing 0.4 pA, which −tol·Ω in volts would call a violation.
// Forced pairs (ideal switches, whose state a control sets) are not complementarity pairs.
inline void expect_complementarity(const Waveforms& r, double tol = 1e-9) {
  const auto& forced = r.assembled.mlcs.forced;
  const Eigen::VectorXd own = Eigen::VectorXd(r.assembled.mlcs.D.diagonal());
  double lam_scale = 1e-300, w_scale = 1e-300;
  for (size_t k = 1; k < r.lambda.size(); ++k) {
    lam_scale = std::max(lam_scale, r.lambda[k].lpNorm<Eigen::Infinity>());
    w_scale = std::max(w_scale, r.w[k].lpNorm<Eigen::Infinity>());
  }
  int bad = 0;
  for (size_t k = 1; k < r.lambda.size() && bad < 5; ++k) {
    for (Eigen::Index j = 0; j < r.lambda[k].size(); ++j) {
      if (!forced.empty() && forced[static_cast<size_t>(j)]) continue;
      const double l = r.lambda[k][j], w = r.w[k][j];
      const bool w_bad =
          j < own.size() && own[j] > 0 ? w / own[j] < -tol * lam_scale : w < -tol * w_scale;
      if (l < -tol * lam_scale || w_bad || std::abs(l * w) > tol * lam_scale * w_scale) {
        ADD_FAILURE() << "complementarity violated at t = " << r.t[k] << " pair " << j
                      << ": lambda = " << l << ", w = " << w;
        ++bad;
      }
    }
  }
}

// Stored energy ½ Σ C v² + ½ Σ L i² at every point.
inline std::vector<double> stored_energy(const Waveforms& r) {
  std::vector<double> e(r.x.size(), 0.0);
  const int nodes = r.assembled.node_count;
  for (size_t k = 0; k < r.x.size(); ++k) {
    const Eigen::VectorXd& x = r.x[k];
    auto v = [&](int node) { return node > 0 ? x[node - 1] : 0.0; };
    int branch = nodes;
    for (const auto& dev : r.circuit.devices) {
      if (const auto* c = std::get_if<circuit::Capacitor>(&dev)) {
        const double u = v(c->a) - v(c->b);
        e[k] += 0.5 * c->c * u * u;
      } else if (const auto* l = std::get_if<circuit::Inductor>(&dev)) {
        e[k] += 0.5 * l->l * x[branch] * x[branch];
        ++branch;
      } else if (std::holds_alternative<circuit::VoltageSource>(dev)) {
        ++branch;
      }
    }
  }
  return e;
}

// Energy never increases from step 1 on (step 0 → 1 may be an impulsive jump, which also
// dissipates); tolerance relative to the initial energy.
inline void expect_energy_non_increasing(const Waveforms& r, double rel_tol = 1e-10) {
  const auto e = stored_energy(r);
  ASSERT_GT(e.size(), 2u);
  const double scale = std::max(e[0], e[1]);
  int bad = 0;
  for (size_t k = 1; k < e.size() && bad < 5; ++k) {
    if (e[k] > e[k - 1] + rel_tol * scale) {
      ADD_FAILURE() << "energy increased at t = " << r.t[k] << ": " << e[k - 1] << " -> " << e[k];
      ++bad;
    }
  }
}

}  // namespace nsspice::testing
