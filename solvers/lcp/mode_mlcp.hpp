#pragma once
// Per-step MLCP by mode iteration on sparse factors (docs/formulation.md §3.2, AB08 §12.4).
// Externally switched pairs (ideal switches) take part in K(σ) with the mode the caller gives.
//
// Problem (the step of the θ-scheme, or the static operating point):
//
//   W x − B λ = r,    w = C x + D λ + d,    0 ≤ w ⊥ λ ≥ 0.
//
// A mode σ ⊂ {1..m} is the set of conducting pairs. Fixing σ (w_j = 0 for j ∈ σ, λ_j = 0
// otherwise) gives one square sparse system K(σ) u = ρ(σ) in u = (x, λ):
//
//   [ W        −B      ] [x]   [ r            ]      row n+j, j ∈ σ:  C_j x + D_j λ = −d_j
//   [ C_σ, e_σ̄ rows    ] [λ] = [ −d_σ, 0       ]      row n+j, j ∉ σ:  λ_j = 0
//
// All K(σ) share one sparsity pattern: a mode change is a numeric refactorization only.
// The step starts from the previous accepted mode; the solution is accepted when
// λ_σ ≥ −tol and w_σ̄ ≥ −tol (tolerances derived from the size of the terms, below).
// Otherwise, with a nonsingular base mode σ, the principal pivot transform gives the LCP
//
//   y = M_σ z + q_σ,   z = (w_σ, λ_σ̄) ≥ 0,  y = (λ_σ, w_σ̄) ≥ 0,  y ⊥ z,
//
// whose columns cost one solve each with the cached factors of K(σ); after row and column
// equilibration the LCP solver chosen by the LcpPolicy (solve_lcp; default: lexicographic
// Lemke) solves it, and its final complementary basis names the new mode
// σ' = σ Δ {j : z_j basic}.
// Since that basis is nonsingular, so is K(σ') (det K(σ') = ± det K(σ) det (M_σ)_{ZZ}), which
// is how a singular W (a bridge whose diodes all block) is handled without any hidden gmin:
// the member of the solution set returned is the one at the vertex Lemke reaches from the
// previous mode (floating potentials pinned where a blocking pair is at the edge, w_j = 0).
#include <Eigen/Core>
#include <array>
#include <functional>
#include <string>
#include <vector>

#include "solvers/lcp/lcp.hpp"
#include "solvers/lcp/policy.hpp"
#include "solvers/linear/factor_cache.hpp"
#include "solvers/linear/klu_lu.hpp"
#include "solvers/mlcs.hpp"

namespace nsspice::solvers {

struct ModeMlcpStats {
  long solves = 0;       // MLCP solves (one per step)
  long mode_solves = 0;  // sparse solves with some K(σ)
  long lemke_calls = 0;  // steps that needed pivoting (calls of the LCP solver)
  long pivots = 0;       // pivots (pivoting methods) or iterations (PGS, Newton)
  // methods[k]: pivoting calls answered by LcpSolverKind k (index 0, kAuto: no method ran).
  std::array<long, kLcpSolverKindCount> methods{};
  long mode_changes = 0;  // steps whose accepted mode differs from the guess
  long inaccurate = 0;    // solutions accepted with the looser tolerance
};

struct MlcpOutcome {
  LcpStatus status = LcpStatus::kSuccess;
  bool mode_changed = false;
  double residual = 0;     // relative complementarity residual of the accepted solution
  std::vector<int> pairs;  // on failure: the offending pairs
  std::string message;     // on failure: what went wrong
};

// The LCP of a step in the form handed to the LCP solver: the principal pivot transform
// (M_σ, q_σ) of the free pairs at the base mode σ, row and column equilibrated.
struct StepLcp {
  Eigen::MatrixXd M;
  Eigen::VectorXd q;
  std::vector<char> base_mode;  // σ (all pairs, 1 = conducting)
  std::vector<char> mode;       // the mode accepted for the step
  bool pivoted = false;         // solved by the LCP solver (false: the mode system sufficed)
  LcpSolverKind method = LcpSolverKind::kAuto;  // the method that answered (pivoted only)
};
using LcpObserver = std::function<void(const StepLcp&)>;

// The sparsity pattern shared by every K(σ) of (W, B, C, D); W's pattern must be the
// union of those of E and G so that one pattern serves all step sizes.
SparseMatrix mode_matrix_pattern(const SparseMatrix& w, const SparseMatrix& b,
                                 const SparseMatrix& c, const SparseMatrix& d,
                                 const SparseMatrix& c_off);

class ModeMlcp {
 public:
  // `symbolic` must be the analysis of mode_matrix_pattern(w, b, c, d, c_off) and outlive this
  // object. Pairs with forced[j] = 1 are externally switched branches (ideal switches): their
  // mode is given by the caller, never checked or pivoted; their off row is
  // C_off_j x + λ_j = 0 (free pairs: λ_j = 0, C_off_j = 0).
  ModeMlcp(const SparseMatrix& w, const SparseMatrix& b, const SparseMatrix& c,
           const SparseMatrix& d, const SparseMatrix& c_off, std::vector<char> forced,
           const KluSymbolic& symbolic, int cache_capacity);

  // Solves the MLCP for right-hand side r and offsets d. `mode` is the guess on entry and the
  // accepted mode on return (mode[j] = 1: pair j conducts). x, lambda, w receive the solution.
  MlcpOutcome solve(const Eigen::VectorXd& r, const Eigen::VectorXd& d, std::vector<char>& mode,
                    Eigen::VectorXd& x, Eigen::VectorXd& lambda, Eigen::VectorXd& w);

  // The LCP method and options used when pivoting (default: the auto order of policy.hpp).
  void set_lcp_policy(const LcpPolicy& policy) { policy_ = policy; }
  // Called with every LCP handed to the LCP solver; with `capture` also once per solve that
  // needed no pivoting, with the transform at the starting mode (the LCP that would have been
  // solved; its solution names the accepted mode).
  void set_lcp_observer(LcpObserver observer, bool capture) {
    observer_ = std::move(observer);
    capture_ = capture;
  }

  // Off: a failed mode check goes straight to pivoting, without first trying the mode with the
  // violated pairs flipped (for tests of the LCP solvers on real steps).
  void set_block_flip(bool on) { block_flip_ = on; }

  const ModeMlcpStats& stats() const { return stats_; }
  const FactorCache& cache() const { return cache_; }

 private:
  int n_, m_;
  SparseMatrix c_, d_;                       // for w = C x + D λ + d
  std::vector<char> forced_;                 // externally switched pairs
  std::vector<int> free_;                    // the complementarity pairs (not forced)
  SparseMatrix k_;                           // K values of the current mode (pattern fixed)
  double w_norm_ = 0;                        // ‖W‖∞
  Eigen::VectorXd c_row_norm_, d_row_norm_;  // ‖C_j‖₁, ‖D_j‖₁
  Eigen::VectorXd b_col_max_;                // max_i |B_ij|
  std::vector<double> on_values_, off_values_;
  const KluSymbolic& symbolic_;
  FactorCache cache_;
  ModeMlcpStats stats_;
  std::vector<char> base_mode_;  // last mode with a nonsingular K
  Eigen::VectorXd u_, rho_;
  mutable Eigen::VectorXd w_scale_, lambda_scale_;  // scratch of check()
  const KluFactor* last_factor_ = nullptr;          // the factor returned last, and its mode
  std::vector<char> last_mode_;
  LcpPolicy policy_;
  LcpObserver observer_;
  bool capture_ = false;
  bool block_flip_ = true;

  // The equilibrated transform at a nonsingular base mode: u = u0 + U z, y = M z + q with
  // M = diag(row_scale) M_σ diag(col_scale) (mode_mlcp_pivot.cpp).
  struct Transform {
    Eigen::VectorXd u0;
    Eigen::MatrixXd u_cols, M;
    Eigen::VectorXd q, row_scale, col_scale;
  };
  void build_transform(const KluFactor& base, const std::vector<char>& base_mode,
                       const Eigen::VectorXd& r, const Eigen::VectorXd& d, Transform& t);
  void observe_unpivoted(const std::vector<char>& start, const std::vector<char>& mode,
                         const Eigen::VectorXd& r, const Eigen::VectorXd& d);

  const KluFactor* factor_for(const std::vector<char>& mode);
  void set_values(const std::vector<char>& mode);
  // Replaces a singular mode by a nearby one whose K is nonsingular; false if none is found.
  bool find_base(std::vector<char>& mode);
  void solve_mode(const KluFactor& f, const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                  const std::vector<char>& mode);
  struct Check {
    bool feasible;
    double residual;
    std::vector<int> violated;
  };
  Check check(const Eigen::VectorXd& lambda, const Eigen::VectorXd& w, const Eigen::VectorXd& x,
              const Eigen::VectorXd& d, double slack) const;
  // Pivots from base_mode by the policy's LCP solver (mode_mlcp_pivot.cpp).
  // Flips the violated pairs of `c` and keeps the result if it passes the strict check.
  void try_flip(const Eigen::VectorXd& r, const Eigen::VectorXd& d, std::vector<char>& mode,
                Eigen::VectorXd& x, Eigen::VectorXd& lambda, Eigen::VectorXd& w, Check& c);
  bool pivot_with_lemke(const KluFactor& base, const std::vector<char>& base_mode,
                        const Eigen::VectorXd& r, const Eigen::VectorXd& d, std::vector<char>& mode,
                        MlcpOutcome& outcome);
  void split(const std::vector<char>& mode, const Eigen::VectorXd& d, Eigen::VectorXd& x,
             Eigen::VectorXd& lambda, Eigen::VectorXd& w) const;
};

}  // namespace nsspice::solvers
