// LCP natural-map residual  r(z, w) = ||z - max(0, z - w)||_inf = max_j |min(z_j, w_j)|.
// Reference: Cottle, Pang, Stone (1992), sec. 1.5 / AB08 ch. 12 (see lcp.hpp).
#include <algorithm>
#include <cmath>
#include <limits>

#include "solvers/lcp/lcp.hpp"

namespace nsspice::solvers {

double lcp_residual(const Eigen::VectorXd& z, const Eigen::VectorXd& w) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (z.size() != w.size()) return kInf;
  double r = 0;
  for (Eigen::Index j = 0; j < z.size(); ++j) {
    const double m = std::min(z[j], w[j]);
    if (std::isnan(z[j]) || std::isnan(w[j])) return kInf;
    r = std::max(r, std::abs(m));
  }
  return r;
}

}  // namespace nsspice::solvers
