// Pivoting step of the mode iteration (mode_mlcp.hpp): the principal pivot transform of the
// free pairs at a nonsingular base mode σ and its solution by the policy's LCP solver.
//
// With K(σ) u = ρ(σ) the mode system and e_{n+j} the unit vector of pair row j, the free
// pairs' complementary variables move as u = u0 + U z, U = K(σ)⁻¹ [e_{n+F_1} … e_{n+F_f}]
// (f solves with the cached factors). For j ∈ σ the basic variable is λ_j (row n+j of u),
// for j ∉ σ it is w_j = C_j x + D_j λ + d_j, so
//
//   y = M_σ z + q_σ,   (M_σ)_k = U_{n+j} (j ∈ σ) or C_j U_x + D_j U_λ (j ∉ σ),
//   q_σ = λ0_j (j ∈ σ) or w0_j (j ∉ σ).
//
// Equilibration: rows by max(|M_k·|, |q_k|), then columns by their max — positive diagonal
// scalings keep 0 ≤ y ⊥ z ≥ 0 and make the solvers' relative tolerances meaningful (the pairs
// mix currents, voltages and dimensionless multipliers). References: CPS §2.3 (principal
// pivoting), AB08 §12.4.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "solvers/lcp/mode_mlcp.hpp"

namespace nsspice::solvers {
namespace {

// Lemke's pivot limit in the mode iteration under the auto policy: base + per pair · (f + 1).
constexpr int kStepLemkePivotsPerPair = 20;
constexpr int kStepLemkePivotsBase = 1000;

}  // namespace

void equilibrate_lcp(Eigen::MatrixXd& M, Eigen::VectorXd& q, Eigen::VectorXd& row_scale,
                     Eigen::VectorXd& col_scale) {
  const Eigen::Index f = M.rows();
  row_scale.resize(f);
  col_scale.resize(f);
  for (Eigen::Index k = 0; k < f; ++k) {
    const double size = std::max(f > 0 ? M.row(k).cwiseAbs().maxCoeff() : 0.0, std::abs(q[k]));
    row_scale[k] = size > 0 ? 1.0 / size : 1.0;
  }
  M = row_scale.asDiagonal() * M;
  for (Eigen::Index k = 0; k < f; ++k) {
    const double size = M.col(k).cwiseAbs().maxCoeff();
    col_scale[k] = size > 0 ? 1.0 / size : 1.0;
  }
  M = M * col_scale.asDiagonal();
  q = row_scale.cwiseProduct(q);
}

std::string named_method_limit(int free_pairs, LcpSolverKind kind) {
  if (kind == LcpSolverKind::kAuto || free_pairs <= kNamedMethodMaxPairs) return {};
  const double bytes = 8.0 * free_pairs * free_pairs;
  return fmt::format(
      "a named LCP method ({}) solves the dense transform of all {} complementarity pairs "
      "(over {:.0f} MB); it is allowed up to {} pairs. The auto policy pivots by blocks on sparse "
      "factors above {} pairs",
      to_string(kind), free_pairs, bytes / 1048576.0, kNamedMethodMaxPairs, kDenseTransformMax);
}

std::string dump_limit(int free_pairs, LcpSolverKind kind) {
  if (kind != LcpSolverKind::kAuto || free_pairs <= kDenseTransformMax) return {};
  return fmt::format(
      "the circuit has {} complementarity pairs; above {} the auto policy pivots by blocks on "
      "sparse factors and never forms a step's LCP, so there is none to write (name a method "
      "with --lcp-solver to dump one, up to {} pairs)",
      free_pairs, kDenseTransformMax, kNamedMethodMaxPairs);
}

LcpPolicy ModeMlcp::step_policy(int f) const {
  LcpPolicy policy = policy_;
  // Lemke needs O(f) pivots on the steps of circuits; its default limit min(50 (f+1)², 10⁶) only
  // matters when rounding makes it cycle (seen on the vanishing settle step of a 240-pair MMC: 10⁶
  // pivots, 40 s). Under the auto policy a fallback follows, so the limit is lowered.
  if (policy.force == LcpSolverKind::kAuto && policy.lemke.max_pivots == 0)
    policy.lemke.max_pivots = kStepLemkePivotsPerPair * (f + 1) + kStepLemkePivotsBase;
  return policy;
}

ModeMlcp::TransformBase* ModeMlcp::kept_transform(const std::vector<char>& base_mode) {
  const std::vector<int>& pairs = live();
  for (TransformBase& e : transforms_)
    if (!e.base_mode.empty() && e.base_mode == base_mode && e.pairs == pairs) return &e;
  return nullptr;
}

bool ModeMlcp::reuse_answer(const KluFactor& base, const Eigen::VectorXd& r,
                            const Eigen::VectorXd& d, std::vector<char>& mode, Eigen::VectorXd& x,
                            Eigen::VectorXd& lambda, Eigen::VectorXd& w, Check& c) {
  if (observer_ || policy_.force != LcpSolverKind::kAuto) return false;
  const TransformBase* kept = kept_transform(mode);
  if (kept == nullptr || kept->answer.empty() || kept->answer == mode) return false;
  const std::vector<char>& answer = kept->answer;  // (nothing below touches the kept transforms)
  if (const KluFactor* fac = factor_for(answer)) {
    solve_mode(*fac, r, d, answer);  // as pivot_with_lemke solves the mode it reaches
  } else if (!solve_through(*kept, base, r, d, answer)) {
    return false;
  } else {
    singular_mode_ = answer;  // (solve() reads it only if this mode is the answer)
  }
  Eigen::VectorXd xa, la, wa;
  split(answer, d, xa, la, wa);
  Check ca = check(la, wa, xa, d, 1.0);
  if (!ca.feasible) return false;
  ++stats_.answer_reuses;
  mode = answer;
  x = std::move(xa);
  lambda = std::move(la);
  w = std::move(wa);
  c = std::move(ca);
  return true;
}

bool ModeMlcp::solve_through(const TransformBase& t, const KluFactor& base,
                             const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                             const std::vector<char>& answer) {
  // K(answer) is singular but the complementary basis that names it is not (a pivoting reached
  // it): with F the pairs in which `answer` differs from the base, z_F solves (M_σ)_FF z_F = −q_F
  // and the other z_k are 0, so u = u0 + U_F z_F satisfies the rows of `answer` (the pairs of F
  // at y_k = 0, the others at z_k = 0), as pivot_with_lemke's u0 + U z does.
  const std::vector<char>& base_mode = t.base_mode;
  std::vector<int> flipped;  // positions k in t.pairs
  for (int k = 0; k < static_cast<int>(t.pairs.size()); ++k) {
    const int j = t.pairs[static_cast<size_t>(k)];
    if (answer[static_cast<size_t>(j)] != base_mode[static_cast<size_t>(j)]) flipped.push_back(k);
  }
  const int nf = static_cast<int>(flipped.size());
  if (nf == 0 || nf > kLowRankMaxPairs) return false;
  solve_mode(base, r, d, base_mode);
  const Eigen::VectorXd u0 = u_;
  const Eigen::VectorXd q = transform_q(base_mode, t.pairs, u0, d);
  Eigen::MatrixXd mff(nf, nf);
  Eigen::VectorXd qf(nf);
  for (int a = 0; a < nf; ++a) {
    const int k = flipped[static_cast<size_t>(a)];
    for (int b = 0; b < nf; ++b) mff(a, b) = t.m_raw(k, flipped[static_cast<size_t>(b)]);
    qf[a] = q[k];
  }
  count_dense(nf);
  const Eigen::FullPivLU<Eigen::MatrixXd> lu(mff);
  if (!lu.isInvertible()) return false;
  const Eigen::VectorXd zf = lu.solve(-qf);
  u_ = u0;
  for (int a = 0; a < nf; ++a) u_ += zf[a] * t.u_cols.col(flipped[static_cast<size_t>(a)]);
  return true;
}

Eigen::VectorXd ModeMlcp::transform_q(const std::vector<char>& base_mode,
                                      const std::vector<int>& pairs, const Eigen::VectorXd& u0,
                                      const Eigen::VectorXd& d) const {
  const Eigen::VectorXd w0 = c_ * u0.head(n_) + d_ * u0.tail(m_) + d;
  Eigen::VectorXd q(static_cast<Eigen::Index>(pairs.size()));
  for (size_t k = 0; k < pairs.size(); ++k) {
    const int j = pairs[k];
    q[static_cast<Eigen::Index>(k)] = base_mode[static_cast<size_t>(j)] ? u0[n_ + j] : w0[j];
  }
  return q;
}

ModeMlcp::TransformBase& ModeMlcp::transform_base(const KluFactor& base,
                                                  const std::vector<char>& base_mode,
                                                  TransformBase& own) {
  const std::vector<int>& pairs = live();
  const int f = static_cast<int>(pairs.size());
  ++transform_clock_;
  const double cols = f;
  const double bytes = sizeof(double) * ((n_ + m_) * cols + cols * cols);
  const bool keep = transform_cache_ && bytes <= kTransformCacheBytes / kTransformSlots;
  TransformBase* slot = &own;
  if (keep) {
    if (TransformBase* e = kept_transform(base_mode)) {
      e->last_use = transform_clock_;
      ++stats_.transform_hits;
      return *e;
    }
    if (transforms_.empty()) transforms_.resize(kTransformSlots);
    slot = &*std::min_element(  // the least recently used (or a free) slot
        transforms_.begin(), transforms_.end(),
        [](const TransformBase& a, const TransformBase& b) { return a.last_use < b.last_use; });
  }
  TransformBase& t = *slot;
  t.base_mode = base_mode;
  t.pairs = pairs;
  t.last_use = transform_clock_;
  t.u_cols = Eigen::MatrixXd::Zero(n_ + m_, f);
  for (int k = 0; k < f; ++k) t.u_cols(n_ + pairs[k], k) = 1.0;
  s_.solve_many(base, base_mode, t.u_cols);
  stats_.mode_solves += f;
  const Eigen::MatrixXd y_lin = c_ * t.u_cols.topRows(n_) + d_ * t.u_cols.bottomRows(m_);
  t.m_raw.resize(f, f);
  for (int k = 0; k < f; ++k) {
    const int j = pairs[k];
    if (base_mode[j]) {
      t.m_raw.row(k) = t.u_cols.row(n_ + j);
    } else {
      t.m_raw.row(k) = y_lin.row(j);
    }
  }
  return t;
}

void ModeMlcp::build_transform(const KluFactor& base, const std::vector<char>& base_mode,
                               const Eigen::VectorXd& r, const Eigen::VectorXd& d, Transform& t) {
  const std::vector<int>& pairs = live();
  const int f = static_cast<int>(pairs.size());
  count_dense(f);
  solve_mode(base, r, d, base_mode);
  t.u0 = u_;
  t.base = &transform_base(base, base_mode, t.own);
  Eigen::MatrixXd M = t.base->m_raw;
  Eigen::VectorXd q = transform_q(base_mode, pairs, t.u0, d);
  equilibrate_lcp(M, q, t.row_scale, t.col_scale);
  t.M = std::move(M);
  t.q = std::move(q);
}

void ModeMlcp::observe_unpivoted(const std::vector<char>& start, const std::vector<char>& mode,
                                 const Eigen::VectorXd& r, const Eigen::VectorXd& d) {
  // Above the dense limit (auto policy) the transform of all pairs is never built, not even for
  // a dump (dump_limit).
  if (static_cast<int>(live().size()) > dense_transform_max_ &&
      policy_.force == LcpSolverKind::kAuto)
    return;
  const KluFactor* base = factor_for(start);
  if (base == nullptr) return;
  const Eigen::VectorXd u_keep = u_;  // the accepted solution stays in u_
  Transform t;
  build_transform(*base, start, r, d, t);
  u_ = u_keep;
  observer_(StepLcp{std::move(t.M), std::move(t.q), start, mode, false, LcpSolverKind::kAuto});
}

bool ModeMlcp::pivot_with_lemke(const KluFactor& base, const std::vector<char>& base_mode,
                                const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                                std::vector<char>& mode, MlcpOutcome& outcome) {
  // Forced pairs (switches) are equations in every mode and take no part in the LCP, nor do the
  // pairs they hold off (hold_pairs).
  const std::vector<int>& pairs = live();
  const int f = static_cast<int>(pairs.size());
  if (std::string why = named_method_limit(f, policy_.force); !why.empty()) {
    outcome.status = LcpStatus::kInvalidInput;
    outcome.message = std::move(why);
    return false;
  }
  ++stats_.lemke_calls;
  Transform t;
  build_transform(base, base_mode, r, d, t);
  PolicyResult lcp = solve_lcp(t.M, t.q, step_policy(f));
  ++stats_.methods[static_cast<size_t>(lcp.method)];
  stats_.pivots += lcp.pivots + lcp.iterations;
  if (lcp.status != LcpStatus::kSolved && lcp.status != LcpStatus::kInaccurate) {
    if (observer_) observer_(StepLcp{t.M, t.q, base_mode, base_mode, true, lcp.method});
    outcome.status = lcp.status;
    for (int k = 0; k < f; ++k)
      if (t.q[k] < 0) outcome.pairs.push_back(pairs[k]);
    outcome.message =
        lcp.status == LcpStatus::kInfeasible && lcp.proven_infeasible
            ? "the complementarity problem of the step has no solution"
        : lcp.status == LcpStatus::kInfeasible
            ? "no solution of the step's complementarity problem was found (its matrix is not a "
              "P-matrix, where pivoting can end on a ray although a solution exists)"
            : fmt::format("the LCP solver ({}) failed on the step's complementarity problem{}",
                          to_string(lcp.method), lcp.message.empty() ? "" : ": " + lcp.message);
    return false;
  }
  const Eigen::VectorXd z = t.col_scale.cwiseProduct(lcp.z);
  std::vector<char> next = base_mode;
  for (int k = 0; k < f; ++k)
    if (lcp.z_basic[k]) next[pairs[k]] = !next[pairs[k]];
  if (observer_)
    observer_(StepLcp{std::move(t.M), std::move(t.q), base_mode, next, true, lcp.method});
  t.base->answer = next;
  if (const KluFactor* fac = factor_for(next)) {
    solve_mode(*fac, r, d, next);  // exact solve in the new mode
  } else {
    u_ = t.u0 + t.base->u_cols * z;  // the pivot basis says K(σ') is nonsingular: the transform
    singular_mode_ = next;
  }
  mode = next;
  return true;
}

}  // namespace nsspice::solvers
