#include "solvers/time/step_control.hpp"

#include <algorithm>
#include <cmath>

namespace nsspice::solvers {
namespace {
constexpr double kSafety = 0.9, kShrink = 0.2, kGrow = 2.0;
constexpr double kLadderSteps = 8.0;  // ladder values per factor 2
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
  if (t_.size() == 3) {
    t_.erase(t_.begin());
    x_.erase(x_.begin());
  }
  t_.push_back(t);
  x_.push_back(x);
  if (peak_.size() != x.size()) peak_ = Eigen::VectorXd::Zero(x.size());
  peak_ = peak_.cwiseMax(x.cwiseAbs());
}

void ErrorEstimator::restart(double t, const Eigen::VectorXd& x) {
  t_.clear();
  x_.clear();
  since_restart_ = 0;
  push(t, x);
}

void ErrorEstimator::accept(double t, const Eigen::VectorXd& x) {
  ++since_restart_;
  push(t, x);
}

void ErrorEstimator::last_points(std::span<const TrajectoryPoint> candidate, bool candidate_only,
                                 std::vector<double>& ts,
                                 std::vector<const Eigen::VectorXd*>& xs) const {
  // The last (≤ 4) points: the phase's, then the candidate's.
  ts.clear();
  xs.clear();
  for (size_t k = 0; !candidate_only && k < t_.size(); ++k) {
    ts.push_back(t_[k]);
    xs.push_back(&x_[k]);
  }
  for (const auto& p : candidate) {
    ts.push_back(p.t);
    xs.push_back(p.x);
  }
  if (ts.size() > 4) {
    ts.erase(ts.begin(), ts.end() - 4);
    xs.erase(xs.begin(), xs.end() - 4);
  }
}

bool ErrorEstimator::truncation(std::span<const TrajectoryPoint> candidate, double h, double theta,
                                int substeps, bool candidate_only, Eigen::VectorXd& tau) const {
  std::vector<double> ts;
  std::vector<const Eigen::VectorXd*> xs;
  last_points(candidate, candidate_only, ts, xs);
  const size_t np = ts.size();
  const bool trapezoidal = substeps == 1 && theta == 0.5;
  if (np < 3 || (trapezoidal && np < 4)) return false;
  // Divided differences x[t_a, t_a+1] and x[t_a, t_a+1, t_a+2].
  auto d1 = [&](size_t a) -> Eigen::VectorXd {
    return (*xs[a + 1] - *xs[a]) / (ts[a + 1] - ts[a]);
  };
  auto d2 = [&](size_t a) -> Eigen::VectorXd { return (d1(a + 1) - d1(a)) / (ts[a + 2] - ts[a]); };
  const Eigen::VectorXd x2 = 2.0 * d2(np - 3);
  if (substeps > 1) {
    const double hs = h / substeps;
    tau = (0.5 * hs * hs) * x2;
    return true;
  }
  tau = ((0.5 - theta) * h * h) * x2;
  if (np >= 4)
    tau += ((1.0 / 6.0 - theta / 2.0) * h * h * h * 6.0 / (ts[3] - ts[0])) * (d2(1) - d2(0));
  return true;
}

double ErrorEstimator::norm(const Eigen::VectorXd& delta, const Eigen::VectorXd& x_end) const {
  double err = 0;
  for (Eigen::Index i = 0; i < delta.size(); ++i) {
    const double scale = std::max(peak_[i], std::abs(x_end[i]));
    const double tol =
        (differential_[static_cast<size_t>(i)] ? state_reltol_ : reltol_) * scale + atol_[i];
    const double e = std::abs(delta[i]) / tol;
    err = std::max(err, e);
  }
  return err;
}

double ErrorEstimator::interpolation(const TrajectoryPoint& end) const {
  // The quadratic through (t_{k−2}, t_{k−1}, t_k) on [t_{k−1}, t_k] is off by
  // x‴(ξ)/6 · (t − t_{k−2})(t − t_{k−1})(t − t_k), at most |x‴|/6 · (t_k − t_{k−2}) h²/4.
  // The restart point may hold the algebraic unknowns' values before a jump at the break (the
  // dense output does not use it either): three points after it are needed.
  if (t_.size() < 3 || since_restart_ < 3) return -1.0;
  std::vector<double> ts;
  std::vector<const Eigen::VectorXd*> xs;
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
    err = std::max(err, std::abs(c * third) / (reltol_ * scale + atol_[i]));
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
