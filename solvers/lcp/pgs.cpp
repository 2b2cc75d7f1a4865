// PGS / PSOR / RPSOR. Equations: see pgs.hpp
//   z_i ← max(0, z_i − ω (q_i + Σ_j M_ij z_j) / (M_ii + ρ_i)),  swept i = 1..n.
// Converges for symmetric PSD M. Reference: AB08 §12.4.6; Cottle, Pang, Stone (1992) §5.2.
#include "solvers/lcp/pgs.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <vector>

#include "solvers/lcp/lcp_support.hpp"

namespace nsspice::solvers {
namespace {

constexpr int kDefaultSweeps = 2000;

// Diagonal of the sweep, M_ii + ρ_i; 0 marks a zero row (z_i has no effect on w_i).
Eigen::VectorXd sweep_diagonal(const Eigen::MatrixXd& M, double regularization) {
  const Eigen::Index n = M.rows();
  Eigen::VectorXd diag(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double row_max = M.row(i).cwiseAbs().maxCoeff();
    if (M(i, i) > 0) {
      diag[i] = M(i, i);
    } else if (row_max == 0) {
      diag[i] = 0;
    } else {
      diag[i] = M(i, i) + (regularization > 0 ? regularization : row_max);
      if (!(diag[i] > 0)) diag[i] = row_max;
    }
  }
  return diag;
}

// One sweep; mt = Mᵀ so that row i of M is the contiguous column i of mt.
void sweep(const Eigen::MatrixXd& mt, const Eigen::VectorXd& q, const Eigen::VectorXd& diag,
           double omega, Eigen::VectorXd& z) {
  for (Eigen::Index i = 0; i < z.size(); ++i) {
    if (diag[i] == 0) continue;
    const double w_i = q[i] + mt.col(i).dot(z);
    z[i] = std::max(0.0, z[i] - omega * w_i / diag[i]);
  }
}

}  // namespace

std::string PgsOptions::validate() const {
  if (!(omega > 0 && omega < 2)) return out_of_range("omega", omega, "in (0, 2)");
  if (max_iterations < 0)
    return out_of_range("max_iterations", max_iterations, ">= 0 (0 = automatic)");
  if (check_every < 1) return out_of_range("check_every", check_every, ">= 1");
  if (!(std::isfinite(regularization) && regularization >= 0))
    return out_of_range("regularization", regularization, "finite and >= 0 (0 = automatic)");
  if (!(std::isfinite(accept_residual) && accept_residual >= 0))
    return out_of_range("accept_residual", accept_residual, "finite and >= 0 (0 = derived)");
  return {};
}

LcpResult solve_pgs(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, const PgsOptions& options) {
  if (auto early = early_result(options.validate(), M, q)) return *early;
  LcpResult result;
  const Eigen::Index n = q.size();
  const Eigen::VectorXd diag = sweep_diagonal(M, options.regularization);
  for (Eigen::Index i = 0; i < n; ++i) {
    if (diag[i] == 0 && q[i] < 0) {
      set_candidate(M, q, Eigen::VectorXd::Zero(n), result);
      result.status = LcpStatus::kInfeasible;
      result.message =
          fmt::format("row {} of M is zero and q_{} < 0: w_{} < 0 for every z", i, i, i);
      return result;
    }
  }
  const double m_inf = inf_norm(M);
  const int max_sweeps = options.max_iterations > 0 ? options.max_iterations : kDefaultSweeps;
  const Eigen::MatrixXd mt = M.transpose();
  Eigen::VectorXd z = Eigen::VectorXd::Zero(n);
  std::vector<char> previous_active;
  result.status = LcpStatus::kNoConvergence;
  for (int k = 1; k <= max_sweeps; ++k) {
    sweep(mt, q, diag, options.omega, z);
    result.iterations = k;
    if (k % options.check_every != 0 && k != max_sweeps) continue;
    if (!z.allFinite()) {
      result.message = "iterates diverged (non-finite)";
      set_candidate(M, q, Eigen::VectorXd::Zero(n), result);
      return result;
    }
    set_candidate(M, q, z, result);
    if (options.polish && result.z_basic == previous_active) {
      polish_on_basis(M, q, result.z_basic, result);
    }
    previous_active = result.z_basic;
    classify(m_inf, q, options.accept_residual, LcpStatus::kNoConvergence, result);
    if (result.status == LcpStatus::kSolved) return result;
  }
  result.message =
      fmt::format("no convergence in {} sweeps (residual {:.3g})", max_sweeps, result.residual);
  return result;
}

}  // namespace nsspice::solvers
