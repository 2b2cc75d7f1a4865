// Semismooth Newton on the Fischer–Burmeister function. Equations: see fb_newton.hpp
//   Φ_i = √(z_i² + w_i²) − z_i − w_i,  H = diag(α) + diag(β) M,  d = −H⁻¹Φ,  Armijo on ½‖Φ‖².
// Globally convergent for P-matrices. Reference: AB08 §12.5.4; De Luca, Facchinei, Kanzow
// (1996), "A semismooth equation approach to the solution of nonlinear complementarity
// problems", Math. Programming 75.
#include "solvers/lcp/fb_newton.hpp"

#include <fmt/format.h>

#include <Eigen/LU>
#include <cmath>
#include <limits>
#include <vector>

#include "solvers/lcp/lcp_support.hpp"

namespace nsspice::solvers {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr int kDefaultIterations = 200;
constexpr double kDescentRho = 1e-10;
constexpr double kDescentP = 2.1;

struct State {
  Eigen::VectorXd z, w, phi;
  double psi = 0;
};

State evaluate(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, Eigen::VectorXd z) {
  State s;
  s.w = M * z + q;
  s.phi = (z.array().square() + s.w.array().square()).sqrt() - z.array() - s.w.array();
  s.psi = 0.5 * s.phi.squaredNorm();
  s.z = std::move(z);
  return s;
}

// H = diag(α) + diag(β) M (see the header).
Eigen::MatrixXd jacobian(const Eigen::MatrixXd& M, const State& s) {
  const Eigen::Index n = s.z.size();
  Eigen::VectorXd alpha(n), beta(n);
  const double corner = 1.0 / std::sqrt(2.0) - 1.0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const double rho = std::hypot(s.z[i], s.w[i]);
    alpha[i] = rho > 0 ? s.z[i] / rho - 1.0 : corner;
    beta[i] = rho > 0 ? s.w[i] / rho - 1.0 : corner;
  }
  Eigen::MatrixXd h = beta.asDiagonal() * M;
  h.diagonal() += alpha;
  return h;
}

// Armijo backtracking along d; returns true and the new state on sufficient decrease.
bool line_search(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, const State& s,
                 const Eigen::VectorXd& d, double slope, const FbNewtonOptions& o, State& next) {
  double t = 1.0;
  for (int l = 0; l <= o.max_backtracks; ++l, t *= 0.5) {
    next = evaluate(M, q, s.z + t * d);
    if (std::isfinite(next.psi) && next.psi <= s.psi + o.sigma * t * slope) return true;
  }
  return false;
}

// Newton direction, or an empty vector if H is singular or d is not a good descent direction.
Eigen::VectorXd newton_direction(const Eigen::MatrixXd& h, const Eigen::VectorXd& phi,
                                 const Eigen::VectorXd& grad) {
  const Eigen::PartialPivLU<Eigen::MatrixXd> lu(h);
  Eigen::VectorXd d = lu.solve(-phi);
  if (!d.allFinite() || (h * d + phi).lpNorm<Eigen::Infinity>() >
                            1e-6 * std::max(phi.lpNorm<Eigen::Infinity>(), kEps)) {
    return {};
  }
  if (grad.dot(d) > -kDescentRho * std::pow(d.norm(), kDescentP)) return {};
  return d;
}

// One iteration; false with a message when the method cannot continue.
bool iterate(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, const FbNewtonOptions& o, State& s,
             std::string& message) {
  const Eigen::MatrixXd h = jacobian(M, s);
  const Eigen::VectorXd grad = h.transpose() * s.phi;
  if (grad.lpNorm<Eigen::Infinity>() <= kEps * inf_norm(h) * s.phi.lpNorm<Eigen::Infinity>()) {
    message = fmt::format("stationary point of the merit function (Ψ = {:.3g})", s.psi);
    return false;
  }
  State next;
  const Eigen::VectorXd d = newton_direction(h, s.phi, grad);
  if (d.size() > 0 && line_search(M, q, s, d, grad.dot(d), o, next)) {
    s = std::move(next);
    return true;
  }
  if (line_search(M, q, s, -grad, -grad.squaredNorm(), o, next)) {
    s = std::move(next);
    return true;
  }
  message = fmt::format("line search failed (Ψ = {:.3g})", s.psi);
  return false;
}

}  // namespace

std::string FbNewtonOptions::validate() const {
  if (max_iterations < 0)
    return out_of_range("max_iterations", max_iterations, ">= 0 (0 = automatic)");
  if (max_backtracks < 0) return out_of_range("max_backtracks", max_backtracks, ">= 0");
  if (!(sigma > 0 && sigma < 0.5)) return out_of_range("sigma", sigma, "in (0, 0.5)");
  if (!(std::isfinite(accept_residual) && accept_residual >= 0))
    return out_of_range("accept_residual", accept_residual, "finite and >= 0 (0 = derived)");
  return {};
}

LcpResult solve_fb_newton(const Eigen::MatrixXd& M, const Eigen::VectorXd& q,
                          const FbNewtonOptions& options) {
  if (auto early = early_result(options.validate(), M, q)) return *early;
  LcpResult result;
  const Eigen::Index n = q.size();
  const double m_inf = inf_norm(M);
  const int max_it = options.max_iterations > 0 ? options.max_iterations : kDefaultIterations;
  State s = evaluate(M, q, Eigen::VectorXd::Zero(n));
  std::vector<char> previous_active;
  for (int k = 0;; ++k) {
    set_candidate(M, q, s.z, result);
    if (options.polish && result.z_basic == previous_active) {
      polish_on_basis(M, q, result.z_basic, result);
    }
    previous_active = result.z_basic;
    classify(m_inf, q, options.accept_residual, LcpStatus::kNoConvergence, result);
    if (result.status == LcpStatus::kSolved) return result;
    if (k == max_it) {
      result.message =
          fmt::format("no convergence in {} iterations (residual {:.3g})", max_it, result.residual);
      return result;
    }
    if (!iterate(M, q, options, s, result.message)) return result;
    if (!s.z.allFinite()) {
      result.status = LcpStatus::kNumericalFailure;
      result.message = "non-finite iterate";
      return result;
    }
    result.iterations = k + 1;
  }
}

}  // namespace nsspice::solvers
