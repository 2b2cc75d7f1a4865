// Shared pieces of the dense LCP solvers. Equations: see lcp_support.hpp
//   scale(z) = max(‖q‖∞, ‖M‖∞‖z‖∞, ‖z‖∞),  accept = 10³ (n+1) ε scale,  M_ZZ z_Z = −q_Z.
// Reference: AB08 §12.4; Cottle, Pang, Stone (1992) ch. 1.
#include "solvers/lcp/lcp_support.hpp"

#include <fmt/format.h>

#include <Eigen/LU>
#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <limits>

namespace nsspice::solvers {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr double kAcceptFactor = 1e3;
// LU residual (in units of the acceptance threshold) above which M_ZZ counts as singular.
constexpr double kSingularCheck = 1.0;

}  // namespace

bool lcp_data_valid(const Eigen::MatrixXd& M, const Eigen::VectorXd& q) {
  return M.rows() == q.size() && M.cols() == q.size() && M.allFinite() && q.allFinite();
}

double inf_norm(const Eigen::MatrixXd& M) {
  if (M.size() == 0) return 0.0;
  return M.cwiseAbs().rowwise().sum().maxCoeff();
}

double lcp_scale(double m_inf, const Eigen::VectorXd& q, const Eigen::VectorXd& z) {
  const double z_inf = z.size() ? z.cwiseAbs().maxCoeff() : 0.0;
  const double q_inf = q.size() ? q.cwiseAbs().maxCoeff() : 0.0;
  return std::max({q_inf, m_inf * z_inf, z_inf, std::numeric_limits<double>::min()});
}

double derived_accept(double m_inf, const Eigen::VectorXd& q, const Eigen::VectorXd& z) {
  return kAcceptFactor * static_cast<double>(q.size() + 1) * kEps * lcp_scale(m_inf, q, z);
}

LcpResult trivial_solution(const Eigen::VectorXd& q) {
  LcpResult result;
  result.status = LcpStatus::kSolved;
  result.z = Eigen::VectorXd::Zero(q.size());
  result.w = q;
  result.z_basic.assign(static_cast<std::size_t>(q.size()), 0);
  return result;
}

std::optional<LcpResult> reject_input(const std::string& options_error, const Eigen::MatrixXd& M,
                                      const Eigen::VectorXd& q) {
  const bool sizes_ok = M.rows() == q.size() && M.cols() == q.size();
  if (options_error.empty() && sizes_ok && M.allFinite() && q.allFinite()) return std::nullopt;
  LcpResult rejected;
  if (!options_error.empty()) {
    rejected.status = LcpStatus::kInvalidInput;
    rejected.message = "invalid options: " + options_error;
  } else if (!sizes_ok) {
    rejected.status = LcpStatus::kInvalidInput;
    rejected.message =
        fmt::format("invalid sizes: M is {}x{}, q has {} entries", M.rows(), M.cols(), q.size());
  } else {
    rejected.status = LcpStatus::kNumericalFailure;
    rejected.message = "NaN or Inf in M or q";
  }
  return rejected;
}

std::optional<LcpResult> early_result(const std::string& options_error, const Eigen::MatrixXd& M,
                                      const Eigen::VectorXd& q, bool answer_trivial) {
  if (auto rejected = reject_input(options_error, M, q)) return rejected;
  if (answer_trivial && (q.size() == 0 || q.minCoeff() >= 0)) return trivial_solution(q);
  return std::nullopt;
}

void set_candidate(const Eigen::MatrixXd& M, const Eigen::VectorXd& q,
                   const Eigen::VectorXd& candidate, LcpResult& result) {
  result.z = candidate.cwiseMax(0.0);
  result.w = M * result.z + q;
  result.residual = lcp_residual(result.z, result.w);
  result.z_basic.assign(static_cast<std::size_t>(q.size()), 0);
  for (Eigen::Index j = 0; j < q.size(); ++j) {
    result.z_basic[static_cast<std::size_t>(j)] = result.z[j] > result.w[j] ? 1 : 0;
  }
}

bool polish_on_basis(const Eigen::MatrixXd& M, const Eigen::VectorXd& q,
                     const std::vector<char>& z_basic, LcpResult& result) {
  std::vector<int> idx;
  for (int j = 0; j < static_cast<int>(z_basic.size()); ++j) {
    if (z_basic[static_cast<std::size_t>(j)]) idx.push_back(j);
  }
  const bool have_iterate = result.z.size() == q.size() && result.z.allFinite();
  Eigen::VectorXd z = Eigen::VectorXd::Zero(q.size());
  if (!idx.empty()) {
    const Eigen::MatrixXd m_zz = M(idx, idx);
    const Eigen::VectorXd z0 = have_iterate ? Eigen::VectorXd(result.z(idx))
                                            : Eigen::VectorXd::Zero(Eigen::Index(idx.size()));
    const Eigen::VectorXd rhs = -q(idx) - m_zz * z0;  // correction δ: M_ZZ δ = −q_Z − M_ZZ z0
    Eigen::VectorXd delta = m_zz.partialPivLu().solve(rhs);
    // A singular M_ZZ (e.g. PSD M with many solutions): the minimum-norm correction, which
    // keeps a nearly converged iterate inside the solution set.
    if (!delta.allFinite() || (m_zz * delta - rhs).lpNorm<Eigen::Infinity>() >
                                  kSingularCheck * derived_accept(inf_norm(m_zz), q(idx), z0)) {
      delta = m_zz.completeOrthogonalDecomposition().solve(rhs);
    }
    if (!delta.allFinite()) return false;
    z(idx) = (z0 + delta).cwiseMax(0.0);
  }
  Eigen::VectorXd w = M * z + q;
  const double r = lcp_residual(z, w);
  if (!(r < result.residual) && have_iterate) return false;
  result.z = std::move(z);
  result.w = std::move(w);
  result.residual = r;
  result.z_basic = z_basic;
  return true;
}

void classify(double m_inf, const Eigen::VectorXd& q, double accept, LcpStatus otherwise,
              LcpResult& result) {
  const double limit = accept > 0 ? accept : derived_accept(m_inf, q, result.z);
  result.status = result.residual <= limit ? LcpStatus::kSolved : otherwise;
}

std::string validate_pivoting_options(int max_pivots, double zero_tol, double accept_residual) {
  if (max_pivots < 0) return out_of_range("max_pivots", max_pivots, ">= 0 (0 = automatic)");
  if (!(std::isfinite(zero_tol) && zero_tol >= 0))
    return out_of_range("zero_tol", zero_tol, "finite and >= 0 (0 = derived)");
  if (!(std::isfinite(accept_residual) && accept_residual >= 0))
    return out_of_range("accept_residual", accept_residual, "finite and >= 0 (0 = derived)");
  return {};
}

}  // namespace nsspice::solvers
