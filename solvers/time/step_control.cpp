#include "solvers/time/step_control.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace nsspice::solvers {
namespace {
constexpr double kSafety = 0.9, kShrink = 0.2, kGrow = 2.0;
}  // namespace

ErrorEstimator::ErrorEstimator(const SparseMatrix& E, Eigen::VectorXd atol, double reltol)
    : atol_(std::move(atol)), reltol_(reltol), state_reltol_(reltol * std::sqrt(reltol)) {
  peak_ = Eigen::VectorXd::Zero(atol_.size());
  differential_.assign(static_cast<size_t>(E.cols()), 0);
  for (int j = 0; j < E.outerSize(); ++j)
    for (SparseMatrix::InnerIterator it(E, j); it; ++it)
      if (it.value() != 0.0) differential_[static_cast<size_t>(j)] = 1;
}

void ErrorEstimator::push(double t, const Eigen::VectorXd& x) {
  // A ring of three points: the oldest slot is overwritten (no allocation once sized).
  const int slot = (first_ + count_) % 3;
  if (count_ == 3) first_ = (first_ + 1) % 3;
  count_ = std::min(count_ + 1, 3);
  t_[static_cast<size_t>(slot)] = t;
  x_[static_cast<size_t>(slot)] = x;
  if (peak_.size() != x.size()) peak_ = Eigen::VectorXd::Zero(x.size());
  peak_ = peak_.cwiseMax(x.cwiseAbs());
}

void ErrorEstimator::restart(double t, const Eigen::VectorXd& x) {
  count_ = 0;
  first_ = 0;
  since_restart_ = 0;
  push(t, x);
}

void ErrorEstimator::accept(double t, const Eigen::VectorXd& x) {
  ++since_restart_;
  push(t, x);
}

int ErrorEstimator::last_points(std::span<const TrajectoryPoint> candidate, bool candidate_only,
                                std::array<double, 4>& ts,
                                std::array<const Eigen::VectorXd*, 4>& xs) const {
  // The last (≤ 4) points: the phase's, then the candidate's.
  const int from_phase = candidate_only ? 0 : count_;
  const int total = from_phase + static_cast<int>(candidate.size());
  const int skip = std::max(0, total - 4);
  size_t np = 0;
  for (int k = skip; k < total; ++k, ++np) {
    if (k < from_phase) {
      const auto slot = static_cast<size_t>((first_ + k) % 3);
      ts[np] = t_[slot];
      xs[np] = &x_[slot];
    } else {
      const auto& p = candidate[static_cast<size_t>(k - from_phase)];
      ts[np] = p.t;
      xs[np] = p.x;
    }
  }
  return static_cast<int>(np);
}

bool ErrorEstimator::truncation(std::span<const TrajectoryPoint> candidate, double h, double theta,
                                int substeps, bool candidate_only, Eigen::VectorXd& tau) const {
  std::array<double, 4> ts{};
  std::array<const Eigen::VectorXd*, 4> xs{};
  const int np = last_points(candidate, candidate_only, ts, xs);
  const bool trapezoidal = substeps == 1 && theta == 0.5;
  if (np < 3 || (trapezoidal && np < 4)) return false;
  // x″ ≈ 2 x[t_a, t_a+1, t_a+2] over the last three points; x‴ ≈ 6 x[t0, t1, t2, t3]
  // = 6 (x[t1, t2, t3] − x[t0, t1, t2]) / (t3 − t0) when there are four.
  const auto a = static_cast<size_t>(np - 3);
  const double h1 = ts[a + 1] - ts[a], h2 = ts[a + 2] - ts[a + 1], h12 = ts[a + 2] - ts[a];
  const double hs = h / substeps;
  const double c2 = substeps > 1 ? 0.5 * hs * hs : (0.5 - theta) * h * h;
  const bool third = substeps == 1 && np == 4;
  const double h01 = ts[1] - ts[0], h02 = ts[2] - ts[0];
  const double c3 = third ? (1.0 / 6.0 - theta / 2.0) * h * h * h * 6.0 / (ts[3] - ts[0]) : 0.0;
  const Eigen::Index n = xs[a]->size();
  tau.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double xa = (*xs[a])[i], xb = (*xs[a + 1])[i], xc = (*xs[a + 2])[i];
    const double d2_last = ((xc - xb) / h2 - (xb - xa) / h1) / h12;
    double v = c2 * 2.0 * d2_last;
    if (third) {  // a = 1: the first divided difference over (t0, t1, t2) = (x0, xa, xb)
      const double x0 = (*xs[0])[i];
      v += c3 * (d2_last - ((xb - xa) / h1 - (xa - x0) / h01) / h02);
    }
    tau[i] = v;
  }
  return true;
}

double ErrorEstimator::norm(const Eigen::VectorXd& delta, const Eigen::VectorXd& x_end,
                            const Eigen::VectorXd* floor) const {
  double err = 0;
  for (Eigen::Index i = 0; i < delta.size(); ++i) {
    const double scale = std::max(peak_[i], std::abs(x_end[i]));
    const double tol = (differential_[static_cast<size_t>(i)] ? state_reltol_ : reltol_) * scale +
                       atol_[i] + (floor != nullptr ? (*floor)[i] : 0.0);
    const double e = std::abs(delta[i]) / tol;
    err = std::max(err, e);
  }
  return err;
}

double ErrorEstimator::state_norm(const Eigen::VectorXd& tau, const Eigen::VectorXd& x_end) const {
  double err = 0;
  for (Eigen::Index i = 0; i < tau.size(); ++i) {
    if (!differential_[static_cast<size_t>(i)]) continue;
    const double scale = std::max(peak_[i], std::abs(x_end[i]));
    err = std::max(err, std::abs(tau[i]) / (state_reltol_ * scale + atol_[i]));
  }
  return err;
}

void ErrorEstimator::rounding_rhs(const SparseMatrix& e_abs, double theta_h,
                                  Eigen::VectorXd& rhs) const {
  rhs.noalias() = e_abs * peak_;
  rhs *= std::numeric_limits<double>::epsilon() / theta_h;
}

double ErrorEstimator::interpolation(const TrajectoryPoint& end, bool* ringing,
                                     const Eigen::VectorXd* floor) const {
  // The quadratic through (t_{k−2}, t_{k−1}, t_k) on [t_{k−1}, t_k] is off by
  // x‴(ξ)/6 · (t − t_{k−2})(t − t_{k−1})(t − t_k), at most |x‴|/6 · (t_k − t_{k−2}) h²/4.
  // The restart point may hold the algebraic unknowns' values before a jump at the break (the
  // dense output does not use it either): three points after it are needed.
  if (ringing != nullptr) *ringing = false;
  if (count_ < 3 || since_restart_ < 3) return -1.0;
  std::array<double, 4> ts{};
  std::array<const Eigen::VectorXd*, 4> xs{};
  last_points(std::span<const TrajectoryPoint>(&end, 1), false, ts, xs);
  const double h = ts[3] - ts[2];
  const double omega = (ts[3] - ts[1]) * h * h / 4;
  const double h01 = ts[1] - ts[0], h12 = ts[2] - ts[1], h23 = h;
  const double c = omega / (ts[3] - ts[0]);  // x‴/6 = x[t0, t1, t2, t3]
  double err = 0;
  for (Eigen::Index i = 0; i < xs[3]->size(); ++i) {
    const double d01 = ((*xs[1])[i] - (*xs[0])[i]) / h01, d12 = ((*xs[2])[i] - (*xs[1])[i]) / h12,
                 d23 = ((*xs[3])[i] - (*xs[2])[i]) / h23;
    const double third = (d23 - d12) / (ts[3] - ts[1]) - (d12 - d01) / (ts[2] - ts[0]);
    const double scale = std::max(peak_[i], std::abs((*xs[3])[i]));
    const double e =
        std::abs(c * third) / (reltol_ * scale + atol_[i] + (floor != nullptr ? (*floor)[i] : 0.0));
    if (e > 1 && ringing != nullptr && e > err)
      *ringing = !differential_[static_cast<size_t>(i)] && d01 * d12 < 0 && d12 * d23 < 0;
    err = std::max(err, e);
  }
  return err;
}

double ErrorEstimator::propose(double h, double err, double theta) {
  if (err < 0) return h;
  const double p = theta == 0.5 ? 3.0 : 2.0;  // δ ∝ h^p
  const double factor = err == 0 ? kGrow : kSafety * std::pow(err, -1.0 / p);
  return h * std::clamp(factor, kShrink, kGrow);
}

double ErrorEstimator::ladder_floor(double h) {
  const double k = std::floor(std::log2(h) * kLadderSteps + 1e-9);
  return std::exp2(k / kLadderSteps);
}

}  // namespace nsspice::solvers
