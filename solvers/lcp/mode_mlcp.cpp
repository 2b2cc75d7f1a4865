#include "solvers/lcp/mode_mlcp.hpp"

#include <fmt/format.h>

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <limits>

#include "solvers/check.hpp"

namespace nsspice::solvers {
namespace {

// Tolerance factor κ in tol = κ·ε·scale for accepting λ_j ≥ −tol and w_j ≥ −tol.
constexpr double kStrict = 1e4;
// A solution that passes only with κ·kLooseFactor is returned as kInaccurate.
constexpr double kLooseFactor = 1e4;
constexpr double kEps = std::numeric_limits<double>::epsilon();

std::string mode_key(const std::vector<char>& mode) { return {mode.begin(), mode.end()}; }

}  // namespace

ModeMlcp::ModeMlcp(const SparseMatrix& w, const SparseMatrix& b, const SparseMatrix& c,
                   const SparseMatrix& d, const SparseMatrix& c_off, std::vector<char> forced,
                   const KluSymbolic& symbolic, int cache_capacity, FactorBudget* budget)
    : ModeMlcp(std::make_unique<ModeStructure>(w, b, c, d, c_off, std::move(forced)), nullptr, w,
               symbolic, cache_capacity, budget) {}

ModeMlcp::ModeMlcp(ModeStructure& structure, const SparseMatrix& w, const KluSymbolic& symbolic,
                   int cache_capacity, FactorBudget* budget)
    : ModeMlcp(nullptr, &structure, w, symbolic, cache_capacity, budget) {}

ModeMlcp::ModeMlcp(std::unique_ptr<ModeStructure> own, ModeStructure* shared, const SparseMatrix& w,
                   const KluSymbolic& symbolic, int cache_capacity, FactorBudget* budget)
    : own_(std::move(own)),
      s_(shared != nullptr ? *shared : *own_),
      n_(s_.n),
      m_(s_.m),
      c_(s_.c),
      d_(s_.d),
      b_(s_.b),
      forced_(s_.forced),
      free_(s_.free),
      k_(s_.k),
      c_row_norm_(s_.c_row_norm),
      d_row_norm_(s_.d_row_norm),
      b_col_max_(s_.b_col_max),
      c_rows_(s_.c_rows),
      d_rows_(s_.d_rows),
      c_off_rows_(s_.c_off_rows),
      w_(w),
      symbolic_(symbolic),
      cache_(std::max(cache_capacity, 2), budget) {
  w_.makeCompressed();
  NSSPICE_CHECK(s_.fits(w_), "ModeMlcp: W does not have the pattern of the shared mode structure");
  base_mode_.assign(m_, 0);
  live_ = &free_;
  // Low-rank solves only without externally switched pairs (mode_mlcp_update.cpp, header).
  low_rank_ = std::none_of(forced_.begin(), forced_.end(), [](char f) { return f != 0; });
  w_scales();
}

void ModeMlcp::w_scales() {
  // ‖W‖∞ and |W| by rows, for the tolerances of check().
  Eigen::VectorXd w_rows = Eigen::VectorXd::Zero(n_);
  for (int k = 0; k < w_.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(w_, k); it; ++it) w_rows[it.row()] += std::abs(it.value());
  w_norm_ = n_ > 0 ? w_rows.maxCoeff() : 0.0;
  // The largest conductance of the mode systems: W's, or a pair row's own ‖C_j‖₁/D_jj (a PWL
  // segment pins its voltage through 1/r_j even where W holds nothing but a GMIN).
  g_norm_ = w_norm_;
  for (int j = 0; j < d_.outerSize(); ++j)
    for (SparseMatrix::InnerIterator it(d_, j); it; ++it)
      if (it.row() == j && it.value() > 0) g_norm_ = std::max(g_norm_, c_row_norm_[j] / it.value());
  w_abs_rows_ = w_.cwiseAbs();
  w_abs_rows_.makeCompressed();
}

void ModeMlcp::retarget(const SparseMatrix& w) {
  NSSPICE_CHECK(w.nonZeros() == w_.nonZeros() && s_.fits(w),
                "ModeMlcp::retarget: W does not have the pattern of the shared mode structure");
  std::copy(w.valuePtr(), w.valuePtr() + w.nonZeros(), w_.valuePtr());
  w_scales();
  cache_.clear(true);
  base_mode_.assign(m_, 0);
  last_factor_ = nullptr;
  last_mode_.clear();
  w_state_ = 0;
  if (!y_slot_.empty()) y_slot_.assign(static_cast<size_t>(m_), -1);
  y_cols_.clear();
  for (SchurFactor& e : schur_) {
    e.mode.clear();
    e.active.clear();
    e.ok = false;
    e.last_use = 0;
  }
  schur_now_ = nullptr;
  lr_ = LowRank{};
  flip_seed_ = FlipSeed{};
  transforms_.clear();
}

int ModeMlcp::hold_pairs(std::vector<char>& mode, const Eigen::VectorXd& d) {
  live_ = &free_;
  if (!s_.any_shadow) return 0;
  live_own_.clear();
  int held = 0;
  for (int j : free_) {
    const int s = s_.shadow[static_cast<size_t>(j)];
    if (s >= 0 && mode[s] && d[j] - s_.shadow_ratio[static_cast<size_t>(j)] * d[s] >= 0.0) {
      mode[j] = 0;
      ++held;
    } else {
      live_own_.push_back(j);
    }
  }
  if (held == 0) return 0;
  live_ = &live_own_;
  stats_.max_held = std::max(stats_.max_held, static_cast<long>(held));
  return held;
}

const std::vector<char>& ModeMlcp::held(const std::vector<char>& mode, const Eigen::VectorXd& d) {
  live_ = &free_;
  if (!s_.any_shadow) return mode;  // no copy: the common case
  held_mode_ = mode;
  hold_pairs(held_mode_, d);
  return held_mode_;
}

double ModeMlcp::bytes() const {
  auto sparse = [](const auto& a) {
    return static_cast<double>(a.nonZeros()) * (sizeof(double) + sizeof(int)) +
           static_cast<double>(a.outerSize() + 1) * sizeof(int);
  };
  double b = sparse(w_abs_rows_) + sparse(w_);
  if (own_ != nullptr) b += own_->bytes();
  b += static_cast<double>(y_cols_.size()) * n_ * sizeof(double);
  b += static_cast<double>(u_.size() + u0_.size() + ex_.size() + el_.size() + ew_.size() + 4 * m_) *
       sizeof(double);
  if (w_factor_.valid()) b += w_factor_.bytes();
  b += static_cast<double>(lr_.columns.size()) * (n_ + m_) * sizeof(double);
  for (const TransformBase& t : transforms_)
    b += static_cast<double>(t.u_cols.size() + t.m_raw.size()) * sizeof(double);
  return b;
}

const KluFactor* ModeMlcp::factor_for(const std::vector<char>& mode) {
  // Steady operation asks for the same mode step after step: answer without building the key.
  // (The pointer is checked against the cache's most recent entry: a budget shared with the
  // solvers of other step sizes may have dropped it since.)
  if (last_factor_ != nullptr && mode == last_mode_ && cache_.front_hit(last_factor_) != nullptr)
    return last_factor_;
  const std::string key = mode_key(mode);
  const KluFactor* f = nullptr;
  if (cache_.find(key) != nullptr || cache_.known_singular(key)) {
    f = cache_.get(key, symbolic_, k_);  // a hit, or a singular mode met before (K not read)
  } else {
    offer_template(mode);
    set_values(mode);
    f = cache_.get(key, symbolic_, k_, model_score(mode));
  }
  last_factor_ = f;
  last_mode_ = mode;
  return f;
}

int ModeMlcp::model_score(const std::vector<char>& mode) const {
  // The rank of a mode's factorization as a model for later misses (factor_cache.hpp): the more
  // pairs conduct, the more modes its pivot order serves (a pair's "on" pivots suit its "off"
  // row, not the reverse); switches first, since they commute all the time while diodes of
  // converters stay off.
  int forced_on = 0, free_on = 0;
  for (int j = 0; j < m_; ++j) (forced_[j] ? forced_on : free_on) += mode[j] ? 1 : 0;
  return forced_on * (m_ + 1) + free_on;
}

void ModeMlcp::offer_template(const std::vector<char>& mode) {
  // The model of the analysis (shared by the mode systems of every step size): every switch
  // closed, every free pair off. Its pivot order serves every switch state, so for a converter
  // whose diodes stay off while its switches commute, every later mode system is a
  // refactorization of a copy. (Every free pair on would serve them all too, but with ideal
  // switches across diodes that mode is singular.) Without switches: every free pair on, which
  // serves every mode (a diode clamp's mass turn-on is then refactorizations from the first);
  // when that mode is singular (a bridge shorting its source) nothing is adopted and the modes
  // themselves are ranked by get().
  const FactorModel& model = symbolic_.model();
  if (model.offered || model.fresh_count == 0 || k_.nonZeros() < kModelMinNonzeros) return;
  std::vector<char> tmpl(mode.size(), 0);
  bool any = false;
  for (int j = 0; j < m_; ++j) {
    tmpl[j] = forced_[j];
    any = any || forced_[j];
  }
  if (!any) tmpl.assign(mode.size(), 1);
  set_values(tmpl);
  cache_.offer_model(symbolic_, k_, model_score(tmpl));
}

void ModeMlcp::set_values(const std::vector<char>& mode) { s_.set_values(mode, w_); }

void ModeMlcp::solve_mode(const KluFactor& f, const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                          const std::vector<char>& mode) {
  u_.resize(n_ + m_);
  u_.head(n_) = r;
  for (int j = 0; j < m_; ++j) u_[n_ + j] = mode[j] ? -d[j] : 0.0;
  s_.solve(f, mode, u_);
  ++stats_.mode_solves;
}

void ModeMlcp::split(const std::vector<char>& mode, const Eigen::VectorXd& d, Eigen::VectorXd& x,
                     Eigen::VectorXd& lambda, Eigen::VectorXd& w) const {
  x = u_.head(n_);
  lambda = u_.tail(m_);
  for (int j : free_)
    if (!mode[j]) lambda[j] = 0.0;  // exact by the mode's equation λ_j = 0
  pair_slacks(x, lambda, d, w);
}

void ModeMlcp::pair_slacks(const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
                           const Eigen::VectorXd& d, Eigen::VectorXd& w) const {
  // w = C x + D λ + d row by row (the same sums in the same order as d + C x + D λ).
  w.resize(m_);
  const int* c_outer = c_rows_.outerIndexPtr();
  const int* c_inner = c_rows_.innerIndexPtr();
  const double* c_val = c_rows_.valuePtr();
  const int* d_outer = d_rows_.outerIndexPtr();
  const int* d_inner = d_rows_.innerIndexPtr();
  const double* d_val = d_rows_.valuePtr();
  const double* xp = x.data();
  const double* lp = lambda.data();
  for (int j = 0; j < m_; ++j) {
    double v = d[j];
    for (int p = c_outer[j]; p < c_outer[j + 1]; ++p) v += c_val[p] * xp[c_inner[p]];
    for (int p = d_outer[j]; p < d_outer[j + 1]; ++p) v += d_val[p] * lp[d_inner[p]];
    w[j] = v;
  }
}

ModeMlcp::Check ModeMlcp::check(const Eigen::VectorXd& lambda, const Eigen::VectorXd& w,
                                const Eigen::VectorXd& x, const Eigen::VectorXd& d,
                                double slack) const {
  // Scales of the rounding errors of a sparse solve, which are relative to the whole solution,
  // not to one component: w_j = C_j x + D_j λ + d_j is measured against
  //   S_j = ‖C_j‖₁ (‖x‖∞ + ‖λ‖∞/g) + ‖D_j‖₁ ‖λ‖∞ + |d_j|,
  // where ‖λ‖∞/g is the multipliers' share of the solution in volts (the current through the
  // largest conductance g of the mode systems: ‖W‖∞, or a PWL segment's ‖C_j‖₁/D_jj): a current
  // source into a conducting ideal diode has x = 0 up to the rounding of I/g, and ‖x‖∞ alone
  // would call that rounding a violation (‖W‖∞ alone, where W holds only GMINs or a 1 TΩ
  // resistor, made that share teravolts and passed a wrong mode of a current source into a
  // SPICE diode),
  // and λ_j against the size of the equations that determine it: a multiplier entering KCL
  // through B (|B| ≤ 1 per entry) against ‖W‖∞ ‖x‖∞ / max_i |B_ij|, one entering pair rows
  // through D against min_i S_i / |D_ij| (the comparator's auxiliary multiplier, a voltage), the
  // smaller of the two, plus |λ_j|.
  // A pair is accepted when λ̂_j = λ_j/Λ_j ≥ −κε and ŵ_j = w_j/S_j ≥ −κε; the relative
  // complementarity residual max_j |min(λ̂_j, ŵ_j)| is reported and bounded the same way.
  //
  // Only the pairs that can matter are scaled: a free pair that is off has λ_j = 0 exactly
  // (split), so with w_j ≥ 0 its λ̂_j = 0, ŵ_j ≥ 0 and min(λ̂_j, ŵ_j) = 0 — nothing to test or
  // to add to the residual. The scales of the others are computed on demand, as written above.
  const double x_norm = x.lpNorm<Eigen::Infinity>();
  const double lambda_norm = lambda.lpNorm<Eigen::Infinity>();
  const double tiny = std::numeric_limits<double>::min();
  const double wx = w_norm_ * x_norm;
  const double x_scale = x_norm + (g_norm_ > 0 ? lambda_norm / g_norm_ : 0.0);
  auto w_scale = [&](int i) {
    return c_row_norm_[i] * x_scale + d_row_norm_[i] * lambda_norm + std::abs(d[i]) + tiny;
  };
  // The rows where λ_j enters KCL: Σ_p |W_ip| |x_p| there (≤ ‖W‖∞ ‖x‖∞: a step's W holds
  // E/(θh), large for short steps, only in the rows of the capacitors and inductors concerned).
  auto kcl_scale = [&](int j) {
    double s = 0;
    for (SparseMatrix::InnerIterator it(b_, j); it; ++it) {
      double row = 0;
      for (RowMatrix::InnerIterator r(w_abs_rows_, it.row()); r; ++r)
        row += r.value() * std::abs(x[r.col()]);
      s = std::max(s, row);
    }
    return s;
  };
  auto lambda_scale = [&](int j) {
    double s = b_col_max_[j] > 0 ? std::min(wx, kcl_scale(j)) / b_col_max_[j]
                                 : std::numeric_limits<double>::infinity();
    double own = 0;  // λ_j through its own row w_j = ... + D_jj λ_j (a PWL segment)
    for (SparseMatrix::InnerIterator it(d_, j); it; ++it) {
      if (it.value() == 0.0) continue;
      const double row = w_scale(static_cast<int>(it.row())) / std::abs(it.value());
      s = std::min(s, row);
      if (it.row() == j) own = row;
    }
    if (!std::isfinite(s)) s = lambda_norm + wx;
    // A segment's λ_j is its own row's z_j/D_jj: rounded as that row is, even where nothing
    // flows in the KCL rows it enters (a floating secondary's bridge at its operating point:
    // every current 0, its kcl_scale 0, and a λ of −7e-16 A was a violation).
    s = std::max(s, own);
    return s + std::abs(lambda[j]) + tiny;
  };
  const double limit = -kStrict * slack * kEps;
  Check out{true, 0.0, {}, {}};
  // A solve that produced NaN or ∞ (a numerically singular mode matrix) satisfies nothing, and
  // NaN would pass every comparison below.
  if (!x.allFinite() || !lambda.allFinite() || !w.allFinite()) {
    out.feasible = false;
    out.residual = std::numeric_limits<double>::infinity();
    for (int j : live())
      if (!std::isfinite(lambda[j]) || !std::isfinite(w[j])) {
        out.violated.push_back(j);
        out.severity.push_back(-std::numeric_limits<double>::infinity());
      }
    return out;
  }
  for (int j : live()) {  // a held pair: λ_j = 0, w_j = d_j − α d_s ≥ 0 up to rounding
    if (lambda[j] == 0.0 && w[j] >= 0.0) continue;  // min(λ̂_j, ŵ_j) = 0
    const double wj = w[j] / w_scale(j);
    // Λ_j ≤ ‖W‖∞‖x‖∞ / max_i |B_ij| + |λ_j| + tiny (rounding is monotone), so for λ_j ≥ 0 the
    // quotient by that bound is a lower bound of λ̂_j ≥ 0: when it is at least ŵ_j, min(λ̂_j, ŵ_j)
    // is ŵ_j and λ̂_j passes the test, with no need for Λ_j's row sums (the usual case: a
    // conducting pair, ŵ_j at rounding level). The outcome is the same bits.
    if (lambda[j] >= 0.0 && b_col_max_[j] > 0 &&
        lambda[j] / (wx / b_col_max_[j] + std::abs(lambda[j]) + tiny) >= wj) {
      out.residual = std::max(out.residual, std::abs(wj));
      if (wj < limit) {
        out.feasible = false;
        out.violated.push_back(j);
        out.severity.push_back(wj);
      }
      continue;
    }
    const double lam = lambda[j] / lambda_scale(j);
    out.residual = std::max(out.residual, std::abs(std::min(lam, wj)));
    if (lam < limit || wj < limit) {
      out.feasible = false;
      out.violated.push_back(j);
      out.severity.push_back(std::min(lam, wj));
    }
  }
  if (out.residual > kStrict * slack * kEps) out.feasible = false;
  return out;
}

bool ModeMlcp::solve_any(const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                         const std::vector<char>& mode) {
  if (solve_reduced(r, d, mode) || solve_low_rank(r, d, mode)) return true;
  const KluFactor* f = factor_for(mode);
  if (f == nullptr) return false;
  solve_mode(*f, r, d, mode);
  return true;
}

void ModeMlcp::try_flip(const Eigen::VectorXd& r, const Eigen::VectorXd& d, std::vector<char>& mode,
                        Eigen::VectorXd& x, Eigen::VectorXd& lambda, Eigen::VectorXd& w, Check& c) {
  if (c.violated.empty()) return;  // (violated: free pairs only)
  std::vector<char> trial = mode;
  for (int j : c.violated) trial[j] = !trial[j];
  Eigen::VectorXd xt, lt, wt;
  if (!solve_in_mode(r, d, trial, xt, lt, wt)) return;
  Check ct = check(lt, wt, xt, d, 1.0);
  if (!ct.feasible) {
    // Block pivoting's first iteration from `mode` is this same flip: it starts from here.
    flip_seed_ = {mode, std::move(trial), std::move(ct)};
    return;
  }
  mode = std::move(trial);
  x = std::move(xt);
  lambda = std::move(lt);
  w = std::move(wt);
  c = ct;
}

bool ModeMlcp::solve_in_mode(const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                             const std::vector<char>& mode, Eigen::VectorXd& x,
                             Eigen::VectorXd& lambda, Eigen::VectorXd& w) {
  const std::vector<char>& m = held(mode, d);
  if (!solve_any(r, d, m)) return false;
  split(m, d, x, lambda, w);
  return true;
}

bool ModeMlcp::solve_if_mode_holds(const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                                   const std::vector<char>& mode, Eigen::VectorXd& x,
                                   Eigen::VectorXd& lambda, Eigen::VectorXd& w,
                                   MlcpOutcome& outcome) {
  // A guess with a pair on that a closed switch holds off is not the answer (solve() decides).
  if (const std::vector<char>& m = held(mode, d); &m != &mode && m != mode) return false;
  if (!solve_any(r, d, mode)) return false;
  split(mode, d, x, lambda, w);
  const Check c = check(lambda, w, x, d, 1.0);
  if (!c.feasible) return false;
  ++stats_.solves;
  if (live_ != &free_) ++stats_.held_solves;
  outcome = MlcpOutcome{};
  outcome.residual = c.residual;
  base_mode_ = mode;
  return true;
}

MlcpOutcome ModeMlcp::solve(const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                            std::vector<char>& mode, Eigen::VectorXd& x, Eigen::VectorXd& lambda,
                            Eigen::VectorXd& w) {
  ++stats_.solves;
  MlcpOutcome outcome;
  guess_ = mode;
  singular_mode_.clear();
  flip_seed_.from.clear();
  if (hold_pairs(mode, d) > 0) ++stats_.held_solves;
  const bool by_blocks = static_cast<int>(live().size()) > dense_transform_max_ &&
                         policy_.force == LcpSolverKind::kAuto;
  const bool reduced = solve_reduced(r, d, mode);
  if (!reduced && !solve_start(r, d, mode, outcome)) return outcome;
  const std::vector<char> start = capture_ ? mode : std::vector<char>();
  bool pivoted = false;
  split(mode, d, x, lambda, w);
  Check c = check(lambda, w, x, d, 1.0);
  // One cheap block pivot: flip the violated pairs (often right when a few diodes switch).
  if (block_flip_ && !c.feasible) try_flip(r, d, mode, x, lambda, w, c);
  if (!c.feasible) {
    pivoted = true;
    const bool found = by_blocks ? pivot_by_blocks(r, d, mode, x, lambda, w, c, outcome)
                                 : pivot_dense(r, d, mode, x, lambda, w, c, outcome);
    if (!found) return outcome;
    // Degenerate pivoting can end one flip away (a pair at λ = w = 0 up to rounding): polish.
    if (!c.feasible) try_flip(r, d, mode, x, lambda, w, c);
    if (!c.feasible) polish_by_single_flips(r, d, mode, x, lambda, w, c);
    if (!c.feasible && !accept_loose(lambda, w, x, d, outcome)) return outcome;
  }
  outcome.residual = c.residual;
  outcome.mode_changed = mode != guess_;
  if (outcome.mode_changed) ++stats_.mode_changes;
  // A mode answered through a transform has a singular K: the last nonsingular base stays (it
  // is find_base's first candidate when the next step's guess, this mode, is singular).
  if (!singular_mode_.empty() && singular_mode_ == mode) {
    ++stats_.singular_answers;
  } else {
    base_mode_ = mode;
  }
  if (capture_ && !pivoted && observer_) observe_unpivoted(start, mode, r, d);
  return outcome;
}

bool ModeMlcp::pivot_dense(const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                           std::vector<char>& mode, Eigen::VectorXd& x, Eigen::VectorXd& lambda,
                           Eigen::VectorXd& w, Check& c, MlcpOutcome& outcome) {
  // Usually a cache hit (the factor found above); after a reduced solve K(σ) is factored
  // here, and it is nonsingular since S was (det K(σ) = det W det S) unless rounding says
  // otherwise: then a nearby nonsingular base is searched as for a singular guess.
  const KluFactor* base = factor_for(mode);
  if (base == nullptr && find_base(mode)) base = factor_for(mode);
  if (base == nullptr) {
    outcome.status = LcpStatus::kNumericalFailure;
    outcome.message = "the circuit equations of the step's mode are numerically singular";
    return false;
  }
  if (reuse_answer(*base, r, d, mode, x, lambda, w, c)) return true;
  if (!pivot_with_lemke(*base, mode, r, d, mode, outcome)) {
    // Every dense method failed (e.g. Lemke cycling in rounding on a badly scaled step): with
    // the auto policy, block pivoting has the last word.
    if (policy_.force != LcpSolverKind::kAuto || !solve_any(r, d, mode)) return false;
    split(mode, d, x, lambda, w);
    c = check(lambda, w, x, d, 1.0);
    MlcpOutcome blocks;
    if (!pivot_by_blocks(r, d, mode, x, lambda, w, c, blocks)) return false;
    outcome = MlcpOutcome{};
    return true;
  }
  split(mode, d, x, lambda, w);
  c = check(lambda, w, x, d, 1.0);
  return true;
}

bool ModeMlcp::accept_loose(const Eigen::VectorXd& lambda, const Eigen::VectorXd& w,
                            const Eigen::VectorXd& x, const Eigen::VectorXd& d,
                            MlcpOutcome& outcome) {
  const Check loose = check(lambda, w, x, d, kLooseFactor);
  if (!loose.feasible) {
    outcome.status = LcpStatus::kNumericalFailure;
    outcome.pairs = loose.violated;
    outcome.residual = loose.residual;
    outcome.message = "no mode satisfies the complementarity conditions to tolerance";
    return false;
  }
  outcome.status = LcpStatus::kInaccurate;
  ++stats_.inaccurate;
  return true;
}

}  // namespace nsspice::solvers
