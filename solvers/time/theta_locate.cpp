// Switching instants located inside a θ-step (theta_stepper.hpp, "Adaptive steps").
//
// While the mode σ of the step's start holds, every pair has a guard g_j ≥ 0:
//
//   g_j = w_j = C_j x + D_j λ + d_j   (free pair blocking),     g_j = λ_j   (free pair conducting),
//   g_j = on_above − s,  s − off_below   (ideal switch off, on; s = c·x its control).
//
// When the step's MLCP answers another mode (or a switch control crosses its threshold), the step
// map in the mode σ, t ↦ Φ_σ(t_k → t) (the same θ-step or backward-Euler substeps, solved in σ
// without pivoting), is followed from g(t_k) ≥ 0 to the first zero of the guards that turn
// negative: the earliest linear root of the bracketing values, with the Illinois modification
// (the value kept at an end retained twice is halved), until the bracket is below
// kLocateTol · h. The step then ends at the last point where every guard is ≥ 0.
#include <algorithm>
#include <cmath>
#include <limits>

#include "solvers/time/theta_stepper.hpp"

namespace nsspice::solvers {
namespace {

constexpr double kAtStart = 1e-6;    // a first crossing within this fraction of h is at t_k
constexpr double kLocateTol = 1e-8;  // the located instant, to this fraction of h
constexpr int kMaxLocate = 12;       // Illinois iterations at most
constexpr double kGuardTol = 1e-9;  // a free pair's guard below −kGuardTol · its scale is violated

// The first zero in (t1, t2] of the quadratic through (t0, g0), (t1, g1), (t2, g2) with g1 ≥ 0 >
// g2, else the linear root between t1 and t2.
double quadratic_crossing(double t0, double g0, double t1, double g1, double t2, double g2) {
  const double linear = t1 + (t2 - t1) * std::max(g1, 0.0) / (std::max(g1, 0.0) - g2);
  // g(t) = g1 + b s + c s², s = t − t1.
  const double d10 = (g1 - g0) / (t1 - t0), d21 = (g2 - g1) / (t2 - t1);
  const double c = (d21 - d10) / (t2 - t0);
  const double b = d21 - c * (t2 - t1);
  if (std::abs(c) * (t2 - t1) < 1e-12 * std::abs(b)) return linear;
  const double disc = b * b - 4 * c * g1;
  if (disc < 0) return linear;
  const double sq = std::sqrt(disc);
  // Roots s = (−b ± sq)/(2c), computed without cancellation.
  const double qq = -0.5 * (b + std::copysign(sq, b));
  double best = t2 + 1;
  for (double s : {qq / c, qq != 0 ? g1 / qq : -1.0})
    if (s > 0 && t1 + s <= t2) best = std::min(best, t1 + s);
  return best <= t2 ? best : linear;
}

}  // namespace

void ThetaStepper::guards(const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
                          const Eigen::VectorXd& w, Eigen::VectorXd& g,
                          const std::vector<char>* mode) const {
  const std::vector<char>& sigma = mode != nullptr ? *mode : mode_;
  g.resize(mlcs_.m);
  for (int j = 0; j < mlcs_.m; ++j) {
    const bool forced = !mlcs_.forced.empty() && mlcs_.forced[static_cast<size_t>(j)];
    if (!forced) {
      g[j] = sigma[static_cast<size_t>(j)] ? lambda[j] : w[j];
      continue;
    }
    const int k = switch_of_pair_[static_cast<size_t>(j)];
    if (k < 0) {
      g[j] = std::numeric_limits<double>::infinity();
      continue;
    }
    const auto& sw = mlcs_.switches[static_cast<size_t>(k)];
    const double s = sw.c.dot(x);
    g[j] = switch_on_[static_cast<size_t>(k)] ? s - sw.off_below : sw.on_above - s;
  }
}

ThetaStepper::Location ThetaStepper::locate(double t_next, const std::vector<char>& mode,
                                            MlcpOutcome& outcome) {
  Location loc;
  bool free_changed = false;
  for (int j = 0; j < mlcs_.m; ++j) {
    const bool forced = !mlcs_.forced.empty() && mlcs_.forced[static_cast<size_t>(j)];
    if (!forced && mode[static_cast<size_t>(j)] != mode_[static_cast<size_t>(j)])
      free_changed = true;
  }
  // Kink pairs only (theta_stepper.hpp, "Kinks"): the MLCP's answer stands, unless a switch
  // control crosses within the step (then every crossing is located, kinks included).
  if (free_changed && kinks_only(mode) && !switch_crossed(x_new_)) {
    loc.kink = true;
    return loc;
  }
  // (Without a mode change the MLCP's answer is the old mode's solution: its guards are checked
  // too, since the MLCP accepts a multiplier that is negative to its rounding tolerance.)
  const double h = t_next - t_;
  // The MLCP's answer, kept for when the old mode turns out to hold over the whole step.
  Eigen::VectorXd x_answer, lambda_answer, w_answer;
  std::vector<std::pair<double, Eigen::VectorXd>> inner_answer;
  if (free_changed) {
    x_answer = x_new_;
    lambda_answer = lambda_new_;
    w_answer = w_new_;
    inner_answer = inner_;
    std::vector<char> old = mode_;
    ++stats_.location_solves;
    if (!ok(attempt(t_next, old, true))) {
      // The previous mode is singular over the step: the mode change is taken where the MLCP
      // put it (within this step).
      x_new_.swap(x_answer);
      lambda_new_.swap(lambda_answer);
      w_new_.swap(w_answer);
      inner_.swap(inner_answer);
      return loc;
    }
  }
  Eigen::VectorXd& g0 = g0_;
  Eigen::VectorXd& g1 = g1_;
  guards(x_, lambda_, w_, g0);
  guards(x_new_, lambda_new_, w_new_, g1);
  // A free pair's guard is violated below −kGuardTol times its own scale, and below the same share
  // of the largest multiplier (an on pair) or the largest w (an off pair) of the step: a pair at
  // λ = w = 0 to rounding (a diode across a closed ideal switch) does not cross at every step.
  const double lambda_scale =
      std::max(lambda_.lpNorm<Eigen::Infinity>(), lambda_new_.lpNorm<Eigen::Infinity>());
  const double w_scale = std::max(w_.lpNorm<Eigen::Infinity>(), w_new_.lpNorm<Eigen::Infinity>());
  Eigen::VectorXd& eps = g_eps_;
  eps.resize(mlcs_.m);
  for (int j = 0; j < mlcs_.m; ++j) {
    const bool forced = !mlcs_.forced.empty() && mlcs_.forced[static_cast<size_t>(j)];
    const double floor = kGuardTol * (mode_[static_cast<size_t>(j)] ? lambda_scale : w_scale);
    eps[j] = forced ? 0.0 : std::max(kGuardTol * std::max(std::abs(g0[j]), std::abs(g1[j])), floor);
  }
  auto violated = [&](const Eigen::VectorXd& g) {
    std::vector<int> v;
    for (int j = 0; j < mlcs_.m; ++j)
      if (g[j] < -eps[j]) v.push_back(j);
    return v;
  };
  std::vector<int> hi_set = violated(g1);
  if (hi_set.empty()) {
    if (free_changed) {  // degenerate: the MLCP's answer stands
      x_new_.swap(x_answer);
      lambda_new_.swap(lambda_answer);
      w_new_.swap(w_answer);
      inner_.swap(inner_answer);
    }
    return loc;
  }
  // A pair located at t_ by the previous step has its guard at zero there (to the location's
  // tolerance): it crosses at the start.
  for (int j : at_edge_)
    if (mlcs_.forced.empty() || !mlcs_.forced[static_cast<size_t>(j)]) g0[j] = std::min(g0[j], 0.0);
  auto fraction = [&](int j) { return g0[j] <= 0 ? 0.0 : g0[j] / (g0[j] - g1[j]); };
  double first = 1.0;
  for (int j : hi_set) first = std::min(first, fraction(j));
  // A crossing closer to t_k than the floor step is at t_k: a step that short would be all
  // rounding error (W = G + E/(θh) with h at the resolution of t).
  const double min_step = 1e-9 * (options_.t_stop - options_.t_start);
  if (first <= kAtStart || first * h <= min_step) {
    loc.at_start = true;
    for (int j : hi_set)
      if (fraction(j) <= kAtStart || fraction(j) * h <= min_step) loc.pairs.push_back(j);
    if (free_changed) {
      x_new_.swap(x_answer);
      lambda_new_.swap(lambda_answer);
      w_new_.swap(w_answer);
      inner_.swap(inner_answer);
    }
    return loc;
  }
  // Illinois iterations on the bracket [t_lo, t_hi]: every guard ≥ 0 at t_lo, some < 0 at t_hi.
  double t_lo = t_, t_hi = t_next, a_lo = 1, a_hi = 1;
  Eigen::VectorXd g_lo = g0, g_hi = g1, g;
  Eigen::VectorXd x_lo, lambda_lo, w_lo;
  std::vector<std::pair<double, Eigen::VectorXd>> inner_lo;
  int side = 0;
  const double tol = kLocateTol * h;
  // First estimate: the root of the quadratic through the guards at t_{k−1}, t_k and the trial
  // (when t_{k−1} is in the same smooth phase): O(h³) accurate, so that one more solve usually
  // lands within tol.
  double quadratic_root = t_hi;
  if (!phase_break_ && phase_len_ >= 2 && t_prev_ < t_) {
    const Eigen::VectorXd w_prev = mlcs_.C * x_prev_ + mlcs_.D * lambda_prev_ + mlcs_.d;
    Eigen::VectorXd g_prev;
    guards(x_prev_, lambda_prev_, w_prev, g_prev);
    for (int j : hi_set) {
      const double r = quadratic_crossing(t_prev_, g_prev[j], t_, g0[j], t_next, g1[j]);
      quadratic_root = std::min(quadratic_root, r);
    }
  }
  for (int it = 0; it < kMaxLocate && t_hi - t_lo > tol; ++it) {
    double root = t_hi;
    for (int j : hi_set) {
      const double gl = a_lo * std::max(g_lo[j], 0.0), gh = a_hi * g_hi[j];
      root = std::min(root, t_lo + (t_hi - t_lo) * gl / (gl - gh));
    }
    if (it == 0 && quadratic_root > t_lo && quadratic_root < t_hi) root = quadratic_root;
    if (root - t_ <= min_step) {  // the crossing is within the floor step of t_k
      t_lo = t_;
      break;
    }
    if (!std::isfinite(root)) root = 0.5 * (t_lo + t_hi);
    if (side < 0 && root - t_lo <= tol) break;  // t_lo is within tol of the crossing
    // Aim just before the estimated root, so that the trial usually lands on the feasible side.
    const double t_c = std::clamp(root - 0.5 * tol, t_lo + 0.25 * tol, t_hi - 0.25 * tol);
    std::vector<char> old = mode_;
    ++stats_.location_solves;
    if (!ok(attempt(t_c, old, true))) break;
    guards(x_new_, lambda_new_, w_new_, g);
    std::vector<int> v = violated(g);
    if (v.empty()) {
      t_lo = t_c;
      g_lo = g;
      x_lo = x_new_;
      lambda_lo = lambda_new_;
      w_lo = w_new_;
      inner_lo = inner_;
      if (side < 0) a_hi *= 0.5;
      a_lo = 1;
      side = -1;
    } else {
      t_hi = t_c;
      g_hi = g;
      hi_set = std::move(v);
      if (side > 0) a_lo *= 0.5;
      a_hi = 1;
      side = 1;
    }
  }
  loc.pairs = hi_set;
  if (t_lo == t_) {  // no point inside the step keeps the mode: the crossing is at t_k
    loc.at_start = true;
    return loc;
  }
  loc.located = true;
  x_new_.swap(x_lo);
  lambda_new_.swap(lambda_lo);
  w_new_.swap(w_lo);
  inner_.swap(inner_lo);
  t_next_ = t_lo;
  mlcs_.eval_b(t_lo, s_, b_next_);
  outcome.residual = 0;
  return loc;
}

}  // namespace nsspice::solvers
