// Event-driven integration, part 3: guard functions and event location (event_driven.hpp).
//
// Guards g_i(z), linear in z = (x, λ), stay ≥ 0 while the mode holds:
//   free pair j blocking:    w_j = C_j x + D_j λ + d_j
//   free pair j conducting:  λ_j
//   ideal switch k:          v_on − s (off), s − v_off (on), s = c_k·x
// On a step, g_i(u(s)) with u the collocation polynomial is the cubic through the guard's values
// at the nodes (0, c1, c2, 1); it is sampled at kSamples + 1 points, its first zero before the
// first sample below −tol_i bracketed and found by regula falsi. That estimate has the dense
// output's error (order 3); the zero is then refined on the step map s ↦ g_i(Φ(t0 + s h)), a
// Radau step of length s h from the step start (order 5), by the Illinois method.
#include <algorithm>
#include <cmath>
#include <limits>

#include "solvers/time/event_driven.hpp"

namespace nsspice::solvers {
namespace {

constexpr int kSamples = 32;
// A guard's tolerance: this fraction of the largest size its quantity had in the run.
constexpr double kGuardTol = 1e-10;

// Zero of the cubic p (given by its node values) in [a, b], p(a) ≥ 0 > p(b).
double cubic_zero(const std::array<double, 4>& nodes, double a, double b) {
  auto p = [&](double s) {
    const auto w = RadauStep::weights(s);
    return w[0] * nodes[0] + w[1] * nodes[1] + w[2] * nodes[2] + w[3] * nodes[3];
  };
  double pa = p(a), pb = p(b);
  for (int it = 0; it < 100 && b - a > 1e-15; ++it) {
    double s = (a * pb - b * pa) / (pb - pa);
    if (!(s > a && s < b)) s = 0.5 * (a + b);
    const double ps = p(s);
    if (ps >= 0) {
      a = s;
      pa = ps;
      pb *= 0.5;  // Illinois
    } else {
      b = s;
      pb = ps;
      pa *= 0.5;
    }
  }
  return b;
}

}  // namespace

void EventDriven::guard_values(const Eigen::VectorXd& z, Eigen::VectorXd& g) const {
  const auto x = z.head(n_);
  const auto lambda = z.tail(m_);
  const int nsw = static_cast<int>(mlcs_.switches.size());
  g.resize(m_ + nsw);
  scratch_.noalias() = mlcs_.C * x;
  scratch_.noalias() += mlcs_.D * lambda;
  for (int j = 0; j < m_; ++j) {
    const auto ju = static_cast<size_t>(j);
    if (!mlcs_.forced.empty() && mlcs_.forced[ju])
      g[j] = std::numeric_limits<double>::infinity();  // a switch's pair: guarded by its control
    else
      g[j] = mode_[ju] ? lambda[j] : scratch_[j] + mlcs_.d[j];
  }
  for (int k = 0; k < nsw; ++k) {
    const auto& sw = mlcs_.switches[static_cast<size_t>(k)];
    const double s = sw.c.dot(x);
    g[m_ + k] = switch_on_[static_cast<size_t>(k)] ? s - sw.off_below : sw.on_above - s;
  }
}

void EventDriven::update_scales(const Eigen::VectorXd& z) {
  for (int k = 0; k < nz_; ++k) z_scale_[k] = std::max(z_scale_[k], std::abs(z[k]));
  // Pair guards: the size of both of the pair's quantities (w and λ), so that a tolerance
  // exists before the pair has ever switched; switches: thresholds and control.
  scratch_.noalias() = mlcs_.C * z.head(n_);
  scratch_.noalias() += mlcs_.D * z.tail(m_);
  for (int j = 0; j < m_; ++j) {
    const double w = std::abs(scratch_[j] + mlcs_.d[j]);
    const double l = std::abs(z[n_ + j]);
    guard_scale_[j] = std::max({guard_scale_[j], w, l});
  }
  const int nsw = static_cast<int>(mlcs_.switches.size());
  for (int k = 0; k < nsw; ++k) {
    const auto& sw = mlcs_.switches[static_cast<size_t>(k)];
    guard_scale_[m_ + k] = std::max({guard_scale_[m_ + k], std::abs(sw.c.dot(z.head(n_))),
                                     std::abs(sw.on_above), std::abs(sw.off_below)});
  }
  const double floor = guard_scale_.size() ? 1e-3 * guard_scale_.head(m_).maxCoeff() : 0.0;
  for (Eigen::Index i = 0; i < guard_scale_.size(); ++i)
    guard_tol_[i] = kGuardTol * std::max({guard_scale_[i], i < m_ ? floor : 0.0, 1e-30});
}

EventDriven::Crossing EventDriven::first_crossing(const RadauStep& seg) const {
  Crossing best;
  Eigen::VectorXd g[4];
  guard_values(seg.z0, g[0]);
  for (int k = 0; k < 3; ++k) guard_values(seg.z[static_cast<size_t>(k)], g[k + 1]);
  static const auto table = [] {
    std::array<std::array<double, 4>, kSamples + 1> w{};
    for (int k = 0; k <= kSamples; ++k)
      w[static_cast<size_t>(k)] = RadauStep::weights(1.0 * k / kSamples);
    return w;
  }();
  for (Eigen::Index i = 0; i < g[0].size(); ++i) {
    if (!std::isfinite(g[0][i])) continue;
    const std::array<double, 4> nodes = {g[0][i], g[1][i], g[2][i], g[3][i]};
    const double tol = guard_tol_[i];
    std::array<double, kSamples + 1> p{};
    int first_bad = -1;
    for (int k = 0; k <= kSamples && first_bad < 0; ++k) {
      const auto& w = table[static_cast<size_t>(k)];
      p[static_cast<size_t>(k)] =
          w[0] * nodes[0] + w[1] * nodes[1] + w[2] * nodes[2] + w[3] * nodes[3];
      if (p[static_cast<size_t>(k)] < -tol) first_bad = k;
    }
    if (first_bad < 0) continue;
    int last_ok = first_bad - 1;
    while (last_ok >= 0 && p[static_cast<size_t>(last_ok)] < 0) --last_ok;
    const double s =
        last_ok < 0 ? 0.0
                    : cubic_zero(nodes, 1.0 * last_ok / kSamples, 1.0 * (last_ok + 1) / kSamples);
    if (s < best.s) {
      best.guard = static_cast<int>(i);
      best.s = s;
      best.hi = 1.0 * first_bad / kSamples;
    }
  }
  return best;
}

double EventDriven::locate(const RadauStep& seg, Crossing c, RadauStep& at_event) {
  const double tol_s =
      opt_.time_tol * std::max(std::abs(seg.t0 + seg.h), span_) / seg.h;  // in units of seg
  Eigen::VectorXd g;
  auto value_at = [&](double s, RadauStep& st) {
    ++stats_.refinements;
    if (!radau(seg.t0, s * seg.h, seg.z0, st)) return std::numeric_limits<double>::quiet_NaN();
    guard_values(st.end(), g);
    return g[c.guard];
  };
  guard_values(seg.z0, g);
  double lo = 0, glo = std::max(g[c.guard], 0.0);
  double hi = c.hi;
  RadauStep hi_step;
  double ghi = value_at(hi, hi_step);
  if (!(ghi < 0)) {  // the cubic's dip is not in the step map: try the step end
    hi = 1;
    hi_step = seg;
    guard_values(seg.end(), g);
    ghi = g[c.guard];
    if (!(ghi < 0)) return -1;  // no crossing after all
  }
  if (c.s <= tol_s || hi <= tol_s) {  // at the step start (the guard left zero there)
    at_event.t0 = seg.t0;
    at_event.h = 0;
    at_event.z0 = seg.z0;
    at_event.z = {seg.z0, seg.z0, seg.z0};
    return seg.t0;
  }
  RadauStep trial;
  double s = c.s;
  int side = 0;
  for (int it = 0; it < 80 && hi - lo > tol_s; ++it) {
    // Never closer to the bracket's ends than half the tolerance (no vanishing steps).
    if (!(s > lo + 0.5 * tol_s && s < hi - 0.5 * tol_s)) s = 0.5 * (lo + hi);
    double gs = value_at(s, trial);
    if (!std::isfinite(gs)) {  // a step this short failed: bisect instead
      s = 0.5 * (lo + hi);
      gs = value_at(s, trial);
      if (!std::isfinite(gs)) break;
    }
    if (gs >= 0) {
      lo = s;
      glo = gs;
      if (side == -1) ghi *= 0.5;
      side = -1;
    } else {
      hi = s;
      ghi = gs;
      std::swap(hi_step, trial);
      if (side == 1) glo *= 0.5;
      side = 1;
    }
    s = (lo * ghi - hi * glo) / (ghi - glo);
  }
  at_event = hi_step;
  return seg.t0 + hi * seg.h;
}

}  // namespace nsspice::solvers
