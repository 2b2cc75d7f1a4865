// Murty's least-index principal pivoting. Equations: see murty.hpp
//   r = min{i : p_i < −tol};  principal pivot on T_rr;  stop at p ≥ 0.
// Guaranteed finite for P-matrices. Reference: AB08 §12.4.7 Algorithm 13; Murty (1988) §4.2.
#include "solvers/lcp/murty.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <unordered_set>
#include <vector>

#include "solvers/lcp/lcp_support.hpp"

namespace nsspice::solvers {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr double kZeroTolFactor = 16.0;
constexpr int kPivotCap = 1'000'000;

// splitmix64: a fixed pseudo-random 64-bit key per index for the Zobrist hash of a basis.
std::uint64_t zobrist_key(std::uint64_t j) {
  std::uint64_t x = j + 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

int default_max_pivots(Eigen::Index n) {
  const double nn = static_cast<double>(n + 1);
  const double two_n = n < 30 ? std::ldexp(1.0, static_cast<int>(n)) : double{kPivotCap};
  return static_cast<int>(std::min({two_n, 50.0 * nn * nn, double{kPivotCap}}));
}

// Principal pivot on (r, r) of y = T x + p (see the header).
void principal_pivot(Eigen::MatrixXd& t, Eigen::VectorXd& p, Eigen::Index r) {
  const double piv = t(r, r);
  const Eigen::VectorXd col = t.col(r);
  const Eigen::RowVectorXd row = t.row(r) / piv;
  t.noalias() -= col * row;
  const double p_r = p[r];
  p -= col * (p_r / piv);
  p[r] = -p_r / piv;
  t.col(r) = col / piv;
  t.row(r) = -row;
  t(r, r) = 1.0 / piv;
}

struct Outcome {
  LcpStatus status;
  std::string message;
};

Outcome pivot_loop(Eigen::MatrixXd& t, Eigen::VectorXd& p, std::vector<char>& basic, double q_inf,
                   double zero_tol, int max_pivots, int& pivots) {
  const Eigen::Index n = p.size();
  std::uint64_t hash = 0;
  std::unordered_set<std::uint64_t> seen{hash};
  while (true) {
    const double tol = zero_tol * std::max(q_inf, p.cwiseAbs().maxCoeff());
    Eigen::Index r = 0;
    while (r < n && p[r] >= -tol) ++r;
    if (r == n) return {LcpStatus::kSolved, {}};
    if (!p.allFinite()) return {LcpStatus::kNumericalFailure, "non-finite tableau"};
    if (pivots >= max_pivots) {
      return {LcpStatus::kNoConvergence, fmt::format("pivot limit {} reached", max_pivots)};
    }
    const double piv = t(r, r);
    if (!(piv > zero_tol * t.row(r).cwiseAbs().maxCoeff())) {
      return {LcpStatus::kNumericalFailure,
              fmt::format("pivot {} on index {} is {:.3g} <= 0: M is not a P-matrix", pivots + 1, r,
                          piv)};
    }
    principal_pivot(t, p, r);
    basic[static_cast<std::size_t>(r)] ^= 1;
    hash ^= zobrist_key(static_cast<std::uint64_t>(r));
    ++pivots;
    if (!seen.insert(hash).second) {
      return {LcpStatus::kNoConvergence,
              fmt::format("basis repeated after {} pivots (cycling): M is not a P-matrix", pivots)};
    }
  }
}

}  // namespace

std::string MurtyOptions::validate() const {
  return validate_pivoting_options(max_pivots, zero_tol, accept_residual);
}

LcpResult solve_murty(const Eigen::MatrixXd& M, const Eigen::VectorXd& q,
                      const MurtyOptions& options) {
  if (auto early = early_result(options.validate(), M, q)) return *early;
  LcpResult result;
  const Eigen::Index n = q.size();
  const int max_pivots = options.max_pivots > 0 ? options.max_pivots : default_max_pivots(n);
  const double zero_tol =
      options.zero_tol > 0 ? options.zero_tol : kZeroTolFactor * static_cast<double>(n + 1) * kEps;
  Eigen::MatrixXd t = M;
  Eigen::VectorXd p = q;
  std::vector<char> basic(static_cast<std::size_t>(n), 0);
  const Outcome out =
      pivot_loop(t, p, basic, q.cwiseAbs().maxCoeff(), zero_tol, max_pivots, result.pivots);
  // Candidate from the tableau (z_j = p_j for basic j), then the direct solve on the basis.
  Eigen::VectorXd z = Eigen::VectorXd::Zero(n);
  for (Eigen::Index j = 0; j < n; ++j) {
    if (basic[static_cast<std::size_t>(j)]) z[j] = p[j];
  }
  set_candidate(M, q, z.allFinite() ? z : Eigen::VectorXd::Zero(n), result);
  result.z_basic = basic;
  result.message = out.message;
  if (out.status != LcpStatus::kSolved) {
    result.status = out.status;
    return result;
  }
  polish_on_basis(M, q, basic, result);
  classify(inf_norm(M), q, options.accept_residual, LcpStatus::kInaccurate, result);
  return result;
}

}  // namespace nsspice::solvers
