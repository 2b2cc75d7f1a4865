// LCP solver selection and fallback. Rules and tolerances: see policy.hpp
//   symmetric: |M − Mᵀ|max ≤ 16 (n+1) ε ‖M‖∞;  PD: LLT(S);  PSD: LLT(S + τI).
// Reference: AB08 §12.4.9; Cottle, Pang, Stone (1992) Thm 4.4.13 (Lemke on copositive-plus).
#include "solvers/lcp/policy.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cctype>
#include <chrono>
#include <iterator>
#include <limits>
#include <string>

#include "solvers/lcp/lcp_support.hpp"

namespace nsspice::solvers {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr double kStructureFactor = 16.0;

struct NamedKind {
  std::string_view name;
  LcpSolverKind kind;
};
constexpr NamedKind kNames[] = {
    {"auto", LcpSolverKind::kAuto},   {"lemke", LcpSolverKind::kLemke},
    {"murty", LcpSolverKind::kMurty}, {"enum", LcpSolverKind::kEnumeration},
    {"pgs", LcpSolverKind::kPgs},     {"newton", LcpSolverKind::kNewton},
};

bool applicable(LcpSolverKind kind, const MatrixStructure& s, Eigen::Index n, const LcpPolicy& p) {
  switch (kind) {
    case LcpSolverKind::kMurty:
      return s.positive_diagonal;
    case LcpSolverKind::kPgs:
      return s.symmetric && s.psd;
    case LcpSolverKind::kEnumeration:
      return n <= p.enumeration_max_size;
    default:
      return true;
  }
}

std::vector<LcpSolverKind> auto_order(const MatrixStructure& s, Eigen::Index n,
                                      const LcpPolicy& p) {
  LcpSolverKind primary = LcpSolverKind::kLemke;
  if (s.pd && n >= p.large_size)
    primary = s.symmetric ? LcpSolverKind::kPgs : LcpSolverKind::kMurty;
  std::vector<LcpSolverKind> order{primary};
  for (const LcpSolverKind k :
       {LcpSolverKind::kLemke, LcpSolverKind::kMurty, LcpSolverKind::kNewton, LcpSolverKind::kPgs,
        LcpSolverKind::kEnumeration}) {
    if (k != primary && applicable(k, s, n, p)) order.push_back(k);
  }
  return order;
}

int status_rank(LcpStatus s) {
  switch (s) {
    case LcpStatus::kSolved:
      return 0;
    case LcpStatus::kInaccurate:
      return 1;
    case LcpStatus::kInfeasible:
      return 2;
    default:
      return 3;
  }
}

// True if `a` is a better answer than `b` (see the header's last rule).
bool better(const LcpResult& a, const LcpResult& b) {
  const int ra = status_rank(a.status), rb = status_rank(b.status);
  if (ra != rb) return ra < rb;
  return ra == 1 && a.residual < b.residual;
}

bool proves_infeasible(LcpSolverKind kind, const LcpResult& r, const MatrixStructure& s) {
  if (r.status != LcpStatus::kInfeasible) return false;
  if (kind == LcpSolverKind::kLemke) return s.psd;
  if (kind == LcpSolverKind::kPgs) return true;  // zero row with q_i < 0
  return kind == LcpSolverKind::kEnumeration && r.message.find("(proof") != std::string::npos;
}

// solve_lemke leaves LcpResult::message empty; what its statuses mean (lemke.hpp).
std::string lemke_message(LcpStatus status) {
  switch (status) {
    case LcpStatus::kInfeasible:
      return "secondary ray: no solution if M is copositive-plus (e.g. PSD)";
    case LcpStatus::kNoConvergence:
      return "pivot limit reached";
    case LcpStatus::kNumericalFailure:
      return "invalid data or a non-finite/zero pivot";
    case LcpStatus::kInaccurate:
      return "complementary basis found, residual above the threshold";
    case LcpStatus::kInvalidInput:
    case LcpStatus::kSolved:
      break;
  }
  return {};
}

}  // namespace

std::optional<LcpSolverKind> parse_lcp_solver(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const auto& [n, k] : kNames) {
    if (lower == n) return k;
  }
  return std::nullopt;
}

std::string_view to_string(LcpSolverKind kind) {
  for (const auto& [n, k] : kNames) {
    if (k == kind) return n;
  }
  return "unknown";
}

std::string LcpPolicy::validate() const {
  if (large_size < 0) return out_of_range("large_size", large_size, ">= 0");
  if (pgs_first_sweeps <= 0) return out_of_range("pgs_first_sweeps", pgs_first_sweeps, "> 0");
  if (enumeration_max_size < 0)
    return out_of_range("enumeration_max_size", enumeration_max_size, ">= 0");
  const std::pair<const char*, std::string> parts[] = {{"lemke", lemke.validate()},
                                                       {"murty", murty.validate()},
                                                       {"enumeration", enumeration.validate()},
                                                       {"pgs", pgs.validate()},
                                                       {"newton", newton.validate()}};
  for (const auto& [name, why] : parts)
    if (!why.empty()) return std::string(name) + "." + why;
  return {};
}

MatrixStructure analyze_structure(const Eigen::MatrixXd& M) {
  MatrixStructure s;
  const Eigen::Index n = M.rows();
  if (n == 0 || M.cols() != n || !M.allFinite()) return s;
  const double tau = kStructureFactor * static_cast<double>(n + 1) * kEps * inf_norm(M);
  s.symmetric = (M - M.transpose()).cwiseAbs().maxCoeff() <= tau;
  s.positive_diagonal = M.diagonal().minCoeff() > 0;
  Eigen::MatrixXd sym = 0.5 * (M + M.transpose());
  s.pd = Eigen::LLT<Eigen::MatrixXd>(sym).info() == Eigen::Success;
  if (s.pd) {
    s.psd = true;
  } else {
    sym.diagonal().array() += tau + std::numeric_limits<double>::min();
    s.psd = Eigen::LLT<Eigen::MatrixXd>(sym).info() == Eigen::Success;
  }
  return s;
}

LcpResult run_lcp_solver(LcpSolverKind kind, const Eigen::MatrixXd& M, const Eigen::VectorXd& q,
                         const LcpPolicy& policy) {
  switch (kind) {
    case LcpSolverKind::kMurty:
      return solve_murty(M, q, policy.murty);
    case LcpSolverKind::kEnumeration:
      return solve_enumeration(M, q, policy.enumeration);
    case LcpSolverKind::kPgs:
      return solve_pgs(M, q, policy.pgs);
    case LcpSolverKind::kNewton:
      return solve_fb_newton(M, q, policy.newton);
    case LcpSolverKind::kLemke:
    case LcpSolverKind::kAuto:
      break;
  }
  LcpResult r = solve_lemke(M, q, policy.lemke);
  if (r.message.empty()) r.message = lemke_message(r.status);
  return r;
}

PolicyResult solve_lcp(const Eigen::MatrixXd& M, const Eigen::VectorXd& q,
                       const LcpPolicy& policy) {
  PolicyResult out;
  if (auto rejected = reject_input(policy.validate(), M, q)) {
    static_cast<LcpResult&>(out) = std::move(*rejected);
    return out;
  }
  const bool forced = policy.force != LcpSolverKind::kAuto;
  std::vector<LcpSolverKind> order{policy.force};
  // Below large_size the auto order starts with Lemke whatever the structure, which then decides
  // only the fallbacks and whether Lemke's ray proves infeasibility: it is analyzed (two dense
  // Cholesky factorizations) only when Lemke does not solve the problem. The same order.
  const bool lazy = !forced && q.size() < policy.large_size;
  bool analyzed = false;
  auto analyze = [&] {
    if (analyzed) return;
    analyzed = true;
    out.structure = analyze_structure(M);
    const auto rest = auto_order(out.structure, q.size(), policy);
    if (lazy) {
      order.insert(order.end(), rest.begin() + 1, rest.end());  // rest[0] is Lemke, run first
    } else if (forced) {
      std::copy_if(rest.begin(), rest.end(), std::back_inserter(order),
                   [&](LcpSolverKind k) { return k != policy.force; });
    } else {
      order = rest;
    }
  };
  if (lazy)
    order = {LcpSolverKind::kLemke};
  else if (!forced || policy.fallback_when_forced)
    analyze();
  LcpResult best;
  for (size_t attempt = 0; attempt < order.size(); ++attempt) {
    const LcpSolverKind kind = order[attempt];
    const auto t0 = std::chrono::steady_clock::now();
    LcpPolicy limited = policy;
    if (!forced && kind == LcpSolverKind::kPgs && out.attempts.empty()) {
      limited.pgs.max_iterations = policy.pgs_first_sweeps;
    }
    LcpResult r = run_lcp_solver(kind, M, q, limited);
    const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
    out.attempts.push_back(
        {kind, r.status, r.pivots, r.iterations, r.residual, dt.count(), r.message});
    if (lazy && r.status != LcpStatus::kSolved) analyze();
    const bool stop = r.status == LcpStatus::kSolved || proves_infeasible(kind, r, out.structure);
    if (out.method == LcpSolverKind::kAuto || better(r, best) || stop) {
      best = std::move(r);
      out.method = kind;
    }
    if (stop) break;
  }
  static_cast<LcpResult&>(out) = std::move(best);
  out.proven_infeasible = proves_infeasible(out.method, out, out.structure);
  return out;
}

}  // namespace nsspice::solvers
