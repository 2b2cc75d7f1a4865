// Enumeration of complementary bases. Equations: see enumeration.hpp
//   M_ZZ z_Z = −q_Z, z_Z̄ = 0 for all Z ⊂ {1..n} by increasing |Z|; accept z_Z ≥ 0, w_Z̄ ≥ 0.
// Valid for every M (proof of infeasibility when all M_ZZ are nonsingular). n ≤ 20.
// Reference: AB08 §12.4.2; Cottle, Pang, Stone (1992) §1.3 (complementary cones).
#include "solvers/lcp/enumeration.hpp"

#include <fmt/format.h>

#include <Eigen/LU>
#include <Eigen/QR>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "solvers/lcp/lcp_support.hpp"

namespace nsspice::solvers {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr double kRankFactor = 16.0;

// Next subset with the same number of bits (Gosper's hack).
std::uint32_t next_same_popcount(std::uint32_t v) {
  const std::uint32_t t = v | (v - 1);
  return (t + 1) | (((~t & -~t) - 1) >> (__builtin_ctz(v) + 1));
}

struct Candidate {
  Eigen::VectorXd z;
  bool singular = false;
};

Candidate basis_candidate(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, std::uint32_t mask) {
  const Eigen::Index n = q.size();
  std::vector<int> idx;
  for (int j = 0; j < n; ++j) {
    if (mask & (1u << j)) idx.push_back(j);
  }
  Candidate c{Eigen::VectorXd::Zero(n), false};
  if (idx.empty()) return c;
  const Eigen::MatrixXd m_zz = M(idx, idx);
  const Eigen::VectorXd rhs = -q(idx);
  Eigen::FullPivLU<Eigen::MatrixXd> lu(m_zz);
  lu.setThreshold(kRankFactor * static_cast<double>(idx.size()) * kEps);
  c.singular = !lu.isInvertible();
  const Eigen::VectorXd z_z =
      c.singular ? Eigen::VectorXd(m_zz.completeOrthogonalDecomposition().solve(rhs))
                 : Eigen::VectorXd(lu.solve(rhs));
  c.z(idx) = z_z;
  return c;
}

}  // namespace

std::string EnumerationOptions::validate() const {
  if (max_size < 0 || max_size > kEnumerationHardLimit)
    return out_of_range("max_size", max_size,
                        "in [0, " + std::to_string(kEnumerationHardLimit) + "]");
  if (!(std::isfinite(accept_residual) && accept_residual >= 0))
    return out_of_range("accept_residual", accept_residual, "finite and >= 0 (0 = derived)");
  return {};
}

LcpResult solve_enumeration(const Eigen::MatrixXd& M, const Eigen::VectorXd& q,
                            const EnumerationOptions& options) {
  if (auto early = early_result(options.validate(), M, q, false)) return *early;
  LcpResult result;
  const Eigen::Index n = q.size();
  if (n > options.max_size) {
    result.message = fmt::format("enumeration is limited to n <= {} (n = {})", options.max_size, n);
    return result;
  }
  if (n == 0) return trivial_solution(q);
  const double m_inf = inf_norm(M);
  long singular = 0;
  LcpResult trial;
  for (int k = 0; k <= n; ++k) {
    const auto first = static_cast<std::uint32_t>((1ull << k) - 1);
    const auto last = static_cast<std::uint32_t>(first << (n - k));
    for (std::uint32_t mask = first;; mask = next_same_popcount(mask)) {
      ++result.iterations;
      const Candidate c = basis_candidate(M, q, mask);
      singular += c.singular ? 1 : 0;
      if (c.z.allFinite() && c.z.minCoeff() >= -derived_accept(m_inf, q, c.z)) {
        set_candidate(M, q, c.z, trial);
        const double accept = options.accept_residual > 0 ? options.accept_residual
                                                          : derived_accept(m_inf, q, trial.z);
        if (trial.residual <= accept) {
          trial.iterations = result.iterations;
          trial.status = LcpStatus::kSolved;
          trial.z_basic.assign(static_cast<std::size_t>(n), 0);
          for (int j = 0; j < n; ++j) trial.z_basic[static_cast<std::size_t>(j)] = (mask >> j) & 1;
          if (c.singular) trial.message = "solution on a singular principal submatrix";
          return trial;
        }
      }
      if (k == 0 || mask == last) break;
    }
  }
  result.status = LcpStatus::kInfeasible;
  result.z = Eigen::VectorXd::Zero(n);
  result.w = q;
  result.residual = lcp_residual(result.z, result.w);
  result.message =
      singular == 0
          ? "no complementary basis is feasible (proof: all principal submatrices nonsingular)"
          : fmt::format(
                "no complementary basis is feasible; {} singular principal submatrices were "
                "tried by least squares only (not a proof)",
                singular);
  return result;
}

}  // namespace nsspice::solvers
