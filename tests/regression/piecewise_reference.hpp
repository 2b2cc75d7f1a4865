#pragma once
// Independent reference for two-mode linear complementarity systems with two states:
// exact integration of s' = A_mode s by matrix exponentials, the switching instants located by
// bisection on the mode's guard g_mode·s ≥ 0 (its sign change ends the mode), to 1e-13 s.
// Written from the equations of AB08 §1.1 directly, sharing no code with the simulator.
#include <Eigen/Core>
#include <unsupported/Eigen/MatrixFunctions>
#include <vector>

namespace nsspice::testing {

struct LtiMode {
  Eigen::Matrix2d a;
  Eigen::RowVector2d guard;  // the mode holds while guard·s ≥ 0
};

struct PiecewiseSolution {
  std::vector<double> events;  // switching instants
  // State at time t (t must be within the integrated horizon).
  Eigen::Vector2d at(double t) const;
  std::vector<double> t0;           // start of each segment
  std::vector<int> mode;            // its mode
  std::vector<Eigen::Vector2d> s0;  // its initial state
  std::vector<LtiMode> modes;
};

inline PiecewiseSolution integrate_piecewise(const std::vector<LtiMode>& modes, int mode,
                                             Eigen::Vector2d s, double t_end, double scan = 1e-4) {
  PiecewiseSolution sol;
  sol.modes = modes;
  double t = 0;
  sol.t0.push_back(t);
  sol.mode.push_back(mode);
  sol.s0.push_back(s);
  while (t < t_end) {
    const LtiMode& m = modes[static_cast<size_t>(mode)];
    auto flow = [&](double dt) -> Eigen::Vector2d { return (m.a * dt).exp() * s; };
    double lo = 0, hi = 0;
    bool found = false;
    for (double dt = scan; t + lo < t_end; dt += scan) {
      hi = std::min(dt, t_end - t);
      if (m.guard * flow(hi) < 0) {
        found = true;
        break;
      }
      lo = hi;
      if (hi >= t_end - t) break;
    }
    if (!found) break;
    while (hi - lo > 1e-13) {
      const double mid = 0.5 * (lo + hi);
      (m.guard * flow(mid) < 0 ? hi : lo) = mid;
    }
    s = flow(hi);
    t += hi;
    mode = 1 - mode;
    sol.events.push_back(t);
    sol.t0.push_back(t);
    sol.mode.push_back(mode);
    sol.s0.push_back(s);
  }
  return sol;
}

inline Eigen::Vector2d PiecewiseSolution::at(double t) const {
  size_t k = 0;
  while (k + 1 < t0.size() && t0[k + 1] <= t) ++k;
  return (modes[static_cast<size_t>(mode[k])].a * (t - t0[k])).exp() * s0[k];
}

}  // namespace nsspice::testing
