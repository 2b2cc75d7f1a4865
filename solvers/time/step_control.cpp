#include "solvers/time/step_control.hpp"

#include <algorithm>
#include <cmath>

namespace nsspice::solvers {
namespace {
constexpr double kSafety = 0.9, kShrink = 0.2, kGrow = 2.0;
constexpr double kLadderSteps = 8.0;  // ladder values per factor 2
}  // namespace

ErrorEstimator::ErrorEstimator(const SparseMatrix& E, Eigen::VectorXd atol, double reltol,
                               double span)
    : atol_(std::move(atol)), reltol_(reltol), span_(span) {
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
  push(t, x);
}

void ErrorEstimator::accept(double t, const Eigen::VectorXd& x) { push(t, x); }

bool ErrorEstimator::truncation(std::span<const TrajectoryPoint> candidate, double h, double theta,
                                int substeps, bool candidate_only, Eigen::VectorXd& tau) const {
  // The last (≤ 4) points: the phase's, then the candidate's.
  std::vector<double> ts;
  std::vector<const Eigen::VectorXd*> xs;
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

double ErrorEstimator::norm(const Eigen::VectorXd& delta, const Eigen::VectorXd& x_end,
                            double h) const {
  const double per_unit = h / span_;
  double err = 0;
  for (Eigen::Index i = 0; i < delta.size(); ++i) {
    const double scale = std::max(peak_[i], std::abs(x_end[i]));
    const double tol =
        reltol_ * scale * (differential_[static_cast<size_t>(i)] ? per_unit : 1.0) + atol_[i];
    const double e = std::abs(delta[i]) / tol;
    err = std::max(err, e);
  }
  return err;
}

double ErrorEstimator::propose(double h, double err, double theta) {
  if (err < 0) return h;
  const double p = theta == 0.5 ? 2.0 : 1.0;
  const double factor = err == 0 ? kGrow : kSafety * std::pow(err, -1.0 / p);
  return h * std::clamp(factor, kShrink, kGrow);
}

double ErrorEstimator::ladder_floor(double h) {
  const double k = std::floor(std::log2(h) * kLadderSteps + 1e-9);
  return std::exp2(k / kLadderSteps);
}

}  // namespace nsspice::solvers
