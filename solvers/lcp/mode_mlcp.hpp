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
//
// Reduced solves (enable_reduced): a mode with few active pairs A = σ ∪ {forced pairs} is
// solved by block elimination through the factor of W alone (free pairs off: λ_j = 0):
//
//   x = x0 + Y λ_A,   x0 = W⁻¹ r,   Y = W⁻¹ B_A   (one column per pair, cached),
//   S λ_A = g,   S_jk = R_j Y_k + E_jk,   g_j = e_j − R_j x0,
//
// with R_j = C_j, E_jk = D_jk, e_j = −d_j for a conducting pair and R_j = C_off_j,
// E_jk = δ_jk, e_j = 0 for a forced pair that is off; det K(σ) = det W det S. This is the same
// K(σ) u = ρ(σ) as above, at the cost of one solve with W (n unknowns instead of n + m) and
// |A| vector updates. It is used only while W is well conditioned, |A| is small and S is
// nonsingular; otherwise the K(σ) factors are used.
//
// Many free pairs (more than kDenseTransformMax, policy auto): a failed mode check is not
// answered by the dense transform of all pairs but by block principal pivoting on the mode
// systems (mode_mlcp_block.cpp: Júdice–Pires with Murty's least-index safeguard; each iteration
// one sparse refactorization of K(σ)), and, if that stops on a singular mode or its iteration
// limit, by the transform restricted to the pairs still in doubt (mode_mlcp_doubt.cpp: dense on
// those pairs only, at most kDoubtMax of them). No dense object of order above kDoubtMax is then
// built anywhere; ModeMlcpStats::max_dense_order records the largest one that was.
//
// Pairs across closed switches: a free pair whose w_j is fixed by an ideal switch's on row
// (a diode across the switch; mode_structure.hpp) is held off while that switch is on — its
// current goes through the switch, x is the same — and takes no part in the check, the flips,
// the pivoting or the search for a base. Without that, an ideal diode across a closed switch
// sits at λ_j = w_j = 0 with the current split undetermined, and the modes with both on are
// singular (docs/solvers.md §8).
//
// Low-rank solves (mode_mlcp_update.cpp): a mode not in the factor cache that differs from a
// cached one in at most kLowRankMaxPairs pairs is solved with that factor and a Woodbury
// correction of the flipped pair rows when the cost model there says it is cheaper than a
// factorization (matrices of kModelMinNonzeros entries or more).
#include <Eigen/Core>
#include <Eigen/LU>
#include <Eigen/SparseCore>
#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "solvers/lcp/lcp.hpp"
#include "solvers/lcp/mode_structure.hpp"
#include "solvers/lcp/policy.hpp"
#include "solvers/linear/dense_rcond.hpp"
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
  long mode_changes = 0;      // steps whose accepted mode differs from the guess
  long inaccurate = 0;        // solutions accepted with the looser tolerance
  long reduced_solves = 0;    // mode solves done through W's factor (counted in mode_solves too)
  long w_factorizations = 0;  // numeric factorizations of W (reduced solves)
  // Block principal pivoting (many pairs): calls (counted in lemke_calls too), iterations
  // (counted in pivots too), the single least-index pivots among them, calls that ended on the
  // transform of the pairs in doubt, and the largest such set.
  long block_calls = 0;
  long block_iterations = 0;
  long block_single_pivots = 0;
  long doubt_calls = 0;
  long max_doubt = 0;
  // Dense square matrices built (LCP transforms, Schur complements, rank tests) and the largest
  // order among them.
  long dense_allocations = 0;
  long max_dense_order = 0;
  // Block pivots whose mode system was singular and that were retried on the more violated half
  // of the pairs (mode_mlcp_block.cpp), each one factorization.
  long block_halvings = 0;
  // Low-rank solves (mode_mlcp_update.cpp): modes answered without a factorization of their own,
  // the solves done that way (counted in mode_solves too), the columns K(σ0)⁻¹ e_{n+j} computed.
  long low_rank_modes = 0;
  long low_rank_solves = 0;
  long low_rank_columns = 0;
  // Solves in which diodes across closed ideal switches were held off (ModeStructure::shadow),
  // and the most pairs held in one solve.
  long held_solves = 0;
  long max_held = 0;
  // Pivoting steps whose transform at the base mode was a kept one (no solves for its columns),
  // and steps that needed no pivoting because the mode the last pivoting from the same base
  // reached passed the check (ModeMlcp::TransformBase::answer).
  long transform_hits = 0;
  long answer_reuses = 0;
  // Steps whose answer is a mode with a singular K(σ), solved through the pivot basis of a
  // transform (a floating node between blocking junctions, pinned where a pair is at its edge).
  long singular_answers = 0;
};

// Above this many free pairs (and with the auto policy) the mode iteration pivots by blocks on
// sparse factors instead of building the dense transform of all pairs (mode_mlcp.hpp).
inline constexpr int kDenseTransformMax = 256;
// The largest set of pairs in doubt handed to a dense LCP solver by the block path.
inline constexpr int kDoubtMax = 512;
// A method named by the user (--lcp-solver, .options lcpsolver) solves the dense transform of all
// free pairs ((n + m) × f and f × f doubles): refused above this many free pairs.
inline constexpr int kNamedMethodMaxPairs = 1000;
// The most pairs by which a mode solved by a low-rank update may differ from its base mode (and
// the most columns K(σ0)⁻¹ e_{n+j} held).
inline constexpr int kLowRankMaxPairs = 16;

// Empty when LCP method `kind` may solve the steps of a circuit of `free_pairs` complementarity
// pairs (auto: always; a named method: up to kNamedMethodMaxPairs), else why not.
std::string named_method_limit(int free_pairs, LcpSolverKind kind);
// Empty when a step's LCP can be written (--dump-mlcp) for `free_pairs` pairs solved by `kind`
// (the auto policy forms it only up to kDenseTransformMax pairs), else why not.
std::string dump_limit(int free_pairs, LcpSolverKind kind);

// Row and column equilibration of LCP(M, q) in place: rows by max(|M_k·|, |q_k|), then columns
// by their max (scales of 1 for zero rows/columns); z = col_scale ∘ ẑ recovers the unscaled z.
void equilibrate_lcp(Eigen::MatrixXd& M, Eigen::VectorXd& q, Eigen::VectorXd& row_scale,
                     Eigen::VectorXd& col_scale);

struct MlcpOutcome {
  LcpStatus status = LcpStatus::kSolved;
  bool mode_changed = false;
  double residual = 0;     // relative complementarity residual of the accepted solution
  std::vector<int> pairs;  // on failure: the offending pairs
  std::string message;     // on failure: what went wrong
};
// True when the outcome has an answer to use (solved, or inaccurate: has_answer).
inline bool ok(const MlcpOutcome& o) { return has_answer(o.status); }

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

class ModeMlcp {
  friend class ModeMlcpProbe;  // tests/solvers/transform_reuse_test.cpp: private steps alone

 public:
  // `symbolic` must be the analysis of mode_matrix_pattern(w, b, c, d, c_off) and outlive this
  // object. Pairs with forced[j] = 1 are externally switched branches (ideal switches): their
  // mode is given by the caller, never checked or pivoted; their off row is
  // C_off_j x + λ_j = 0 (free pairs: λ_j = 0, C_off_j = 0). The factor cache's bytes count
  // against `budget` when given (shared with other solvers; it must outlive this object),
  // otherwise against a budget of its own.
  // The step-size independent structures (mode_structure.hpp) are built for this solver alone.
  ModeMlcp(const SparseMatrix& w, const SparseMatrix& b, const SparseMatrix& c,
           const SparseMatrix& d, const SparseMatrix& c_off, std::vector<char> forced,
           const KluSymbolic& symbolic, int cache_capacity, FactorBudget* budget = nullptr);
  // The solver of one step size, on structures shared with the solvers of the other step sizes
  // (`structure` must outlive it; `w` must have its W pattern): only W's values and this step
  // size's own state are built, O(nnz W).
  ModeMlcp(ModeStructure& structure, const SparseMatrix& w, const KluSymbolic& symbolic,
           int cache_capacity, FactorBudget* budget = nullptr);

  // Solves the MLCP for right-hand side r and offsets d. `mode` is the guess on entry and the
  // accepted mode on return (mode[j] = 1: pair j conducts). x, lambda, w receive the solution.
  MlcpOutcome solve(const Eigen::VectorXd& r, const Eigen::VectorXd& d, std::vector<char>& mode,
                    Eigen::VectorXd& x, Eigen::VectorXd& lambda, Eigen::VectorXd& w);

  // The mode system of `mode` alone: no check, no pivoting (the θ-stepper's event location
  // evaluates the guards of the previous mode with it). False if K(σ) is singular.
  bool solve_in_mode(const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                     const std::vector<char>& mode, Eigen::VectorXd& x, Eigen::VectorXd& lambda,
                     Eigen::VectorXd& w);

  // solve()'s first stage alone: the mode system of `mode` and its check. True when `mode` is the
  // step's answer (x, λ, w then hold the solution, `outcome` its residual: the same answer and
  // counts as solve()); false when some pair violates it or K(σ) is singular (nothing pivoted:
  // the fixed-step θ-scheme then goes straight to the backward-Euler redo of a switching step).
  bool solve_if_mode_holds(const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                           const std::vector<char>& mode, Eigen::VectorXd& x,
                           Eigen::VectorXd& lambda, Eigen::VectorXd& w, MlcpOutcome& outcome);

  // The LCP method and options used when pivoting (default: the auto order of policy.hpp).
  void set_lcp_policy(const LcpPolicy& policy) { policy_ = policy; }
  // Called with every LCP handed to the LCP solver; with `capture` also once per solve that
  // needed no pivoting, with the transform at the starting mode (the LCP that would have been
  // solved; its solution names the accepted mode). Not called for steps solved by block
  // pivoting (more free pairs than the dense limit): their LCP is never formed.
  void set_lcp_observer(LcpObserver observer, bool capture) {
    observer_ = std::move(observer);
    capture_ = capture;
  }

  // Off: a failed mode check goes straight to pivoting, without first trying the mode with the
  // violated pairs flipped (for tests of the LCP solvers on real steps).
  void set_block_flip(bool on) { block_flip_ = on; }

  // Free pairs above which a failed mode check goes to block pivoting on sparse factors instead
  // of the dense transform of all pairs (default kDenseTransformMax; 0: always blocks).
  void set_dense_transform_max(int free_pairs) { dense_transform_max_ = free_pairs; }

  // Off: every mode not in the cache is factored (no low-rank solves; for tests). On by default
  // only for circuits without externally switched pairs (mode_mlcp_update.cpp).
  void set_low_rank(bool on) { low_rank_ = on; }

  // Off: the transform of every pivoting step is built anew (for tests; TransformBase below).
  void set_transform_cache(bool on) {
    transform_cache_ = on;
    transforms_.clear();
  }

  // Solves modes with at most `max_active` active pairs (conducting or forced) through the factor
  // of W (header comment); `w_symbolic` is the analysis of W's pattern and must outlive this
  // object. Off by default. A W that is singular or badly conditioned disables it.
  void enable_reduced(const KluSymbolic& w_symbolic, int max_active = 16);

  // The solver of another step size on the same structure (`w` with W's pattern): W's values
  // replaced and everything made from the old ones dropped (the factors of K(σ) and of W, the
  // columns W⁻¹ B_j and Schur factors, the low-rank base, the last base mode); the settings and
  // the statistics stay. What the θ-stepper does with the solver of a step size met once (a
  // location's trial, a cut step) instead of building one for the next such size: O(nnz W)
  // without the allocations of a new solver. Its answers are those of a new solver for `w`.
  void retarget(const SparseMatrix& w);

  // The last mode whose K was nonsingular (find_base's first candidate when a guess is singular).
  // seed_base gives a new solver the base of another step size's solver: K(σ)'s singularity
  // seldom depends on the step size, and a circuit whose all-off mode is singular (transistor
  // models whose junctions all block leave nodes floating) may have no other cheap candidate.
  const std::vector<char>& base_mode() const { return base_mode_; }
  void seed_base(const std::vector<char>& mode) {
    if (mode.size() == base_mode_.size()) base_mode_ = mode;
  }

  const ModeMlcpStats& stats() const { return stats_; }
  const FactorCache& cache() const { return cache_; }
  // Memory held by this solver's own structures (W, scratch, W's factor and columns of the
  // reduced path), the factor cache and the shared ModeStructure apart [bytes].
  double bytes() const;
  const ModeStructure& structure() const { return s_; }

 private:
  ModeMlcp(std::unique_ptr<ModeStructure> own, ModeStructure* shared, const SparseMatrix& w,
           const KluSymbolic& symbolic, int cache_capacity, FactorBudget* budget);
  std::unique_ptr<ModeStructure> own_;  // the structure, when not shared
  ModeStructure& s_;
  int n_, m_;
  // The shared structure's parts, by their former names.
  using RowMatrix = ModeStructure::RowMatrix;
  const SparseMatrix &c_, &d_, &b_;  // for w = C x + D λ + d, and B
  const std::vector<char>& forced_;  // externally switched pairs
  const std::vector<int>& free_;     // the complementarity pairs (not forced)
  // The free pairs of the current solve that are not held off across a closed switch
  // (hold_pairs): &free_, or &live_own_ when some are held.
  const std::vector<int>* live_ = nullptr;
  std::vector<int> live_own_;
  std::vector<char> held_mode_;  // held(): the caller's mode with held pairs off
  SparseMatrix& k_;              // K values of the current mode (scratch)
  const Eigen::VectorXd &c_row_norm_, &d_row_norm_;  // ‖C_j‖₁, ‖D_j‖₁
  const Eigen::VectorXd& b_col_max_;                 // max_i |B_ij|
  const RowMatrix &c_rows_, &d_rows_, &c_off_rows_;  // row-major copies
  // This step size's own.
  SparseMatrix w_;     // W, for the reduced solves and K's values
  double w_norm_ = 0;  // ‖W‖∞
  double g_norm_ = 0;  // max(‖W‖∞, max_j ‖C_j‖₁/D_jj): the largest conductance (check())
  void w_scales();     // w_norm_ and w_abs_rows_ from w_
  RowMatrix w_abs_rows_;  // |W| by rows, for the scale of λ in check()
  const KluSymbolic& symbolic_;
  FactorCache cache_;
  ModeMlcpStats stats_;
  std::vector<char> base_mode_;  // last mode with a nonsingular K
  // solve(): the mode last solved through a transform because its K is singular (empty: none);
  // the answer is singular when it is that mode.
  std::vector<char> singular_mode_;
  Eigen::VectorXd u_;
  const KluFactor* last_factor_ = nullptr;  // the factor returned last, and its mode
  std::vector<char> last_mode_;
  std::vector<char> guess_;  // solve(): the mode on entry (scratch)
  // Reduced solves (enable_reduced).
  const KluSymbolic* w_symbolic_ = nullptr;
  int max_active_ = 0;
  int w_state_ = 0;  // 0: W not factored yet, 1: usable, −1: singular or badly conditioned
  KluFactor w_factor_;
  std::vector<int> y_slot_;              // pair → column of y_cols_, or −1
  std::vector<Eigen::VectorXd> y_cols_;  // W⁻¹ B_j of the pairs met in active sets
  // The factors of S of the last kSchurSlots modes met (a converter's phases and a location's
  // trials alternate between a few modes): each the same S and decision as when it was made.
  struct SchurFactor {
    std::vector<char> mode;   // empty: a free slot
    std::vector<int> active;  // its active pairs
    bool ok = false;          // S is nonsingular (and |A| ≤ max_active_)
    Eigen::PartialPivLU<Eigen::MatrixXd> lu;
    long last_use = 0;
  };
  static constexpr int kSchurSlots = 16;
  std::vector<SchurFactor> schur_;
  SchurFactor* schur_now_ = nullptr;  // the factor of the mode factor_schur was asked last
  long schur_clock_ = 0;
  Eigen::MatrixXd s_scratch_;     // S being assembled
  LuRcond rcond_;                 // the rcond estimates of S and T (their workspace)
  Eigen::VectorXd g_, lambda_a_;  // right-hand side and solution λ_A of S
  Eigen::VectorXd u0_;            // pivot_on_doubt: the solution of the base mode
  Eigen::VectorXd ex_, el_, ew_;  // evaluate(): the last solution (scratch)
  LcpPolicy policy_;
  LcpObserver observer_;
  bool capture_ = false;
  bool block_flip_ = true;
  int dense_transform_max_ = kDenseTransformMax;
  // Low-rank solves (mode_mlcp_update.cpp): the base mode σ0 and its cached factor, the columns
  // Z = K(σ0)⁻¹ e_{n+j} by pair, the mode σ' whose T = I + ΔR Z is factored and its flipped pairs,
  // the cost spent on this base and the cost of one more use [flop equivalents].
  struct LowRank {
    std::vector<char> base_mode;
    std::string base_key;
    const KluFactor* base = nullptr;
    std::vector<int> slot;
    std::vector<Eigen::VectorXd> columns;
    std::vector<char> mode;
    std::vector<int> flip;
    Eigen::PartialPivLU<Eigen::MatrixXd> t_lu;
    bool ok = false;
    double spent = 0, use_cost = 0;
  };
  LowRank lr_;
  bool low_rank_ = true;

  // The part of the transform at a base mode σ that does not depend on the step's r and d: the
  // columns U = K(σ)⁻¹ [e_{n+F_1} … e_{n+F_f}] and M_σ before equilibration. They are functions
  // of W (this solver's step size), σ and the pairs decided, so a converter whose pivoting
  // steps come back to a few base modes period after period (the level-1 MOSFET buck of
  // examples/: 405 pivoting steps, 12 base modes) builds each once: the last kTransformSlots are
  // kept, each of at most kTransformCacheBytes / kTransformSlots, and dropped by retarget().
  //
  // Each also keeps the mode its last pivoting reached (`answer`): before pivoting again from
  // that base, the mode iteration tries it (one solve and the mode check; the answer if the
  // check passes, as for any guess), since a periodic circuit's pivoting steps mostly end where
  // they ended a period before. Not with a named LCP method or an LCP observer (the method is
  // then to solve every pivoting step's LCP).
  struct TransformBase {
    std::vector<char> base_mode;  // empty: a free slot
    std::vector<int> pairs;       // live() when it was built
    Eigen::MatrixXd u_cols, m_raw;
    std::vector<char> answer;  // the mode the last pivoting from it reached (empty: none yet)
    long last_use = 0;
  };
  static constexpr int kTransformSlots = 8;
  static constexpr double kTransformCacheBytes = 8e6;
  std::vector<TransformBase> transforms_;
  long transform_clock_ = 0;
  bool transform_cache_ = true;
  // The kept TransformBase of (base_mode, live()), or a new one: into a slot (the least recently
  // used) when it fits, else into `own`.
  TransformBase& transform_base(const KluFactor& base, const std::vector<char>& base_mode,
                                TransformBase& own);
  // The kept TransformBase of (base_mode, live()), or null.
  TransformBase* kept_transform(const std::vector<char>& base_mode);
  // q_σ of the transform at `base_mode` over `pairs` from the base's solution u0: λ_j of a
  // conducting pair, w_j = C_j x + D_j λ + d_j of a blocking one.
  Eigen::VectorXd transform_q(const std::vector<char>& base_mode, const std::vector<int>& pairs,
                              const Eigen::VectorXd& u0, const Eigen::VectorXd& d) const;
  // The equilibrated transform at a nonsingular base mode: u = u0 + U z, y = M z + q with
  // M = diag(row_scale) M_σ diag(col_scale) (mode_mlcp_pivot.cpp); U is base->u_cols.
  struct Transform {
    Eigen::VectorXd u0;
    Eigen::MatrixXd M;
    Eigen::VectorXd q, row_scale, col_scale;
    TransformBase own;              // U and M_σ when not kept
    TransformBase* base = nullptr;  // the kept one or &own (valid until the next build)
  };
  void build_transform(const KluFactor& base, const std::vector<char>& base_mode,
                       const Eigen::VectorXd& r, const Eigen::VectorXd& d, Transform& t);
  void observe_unpivoted(const std::vector<char>& start, const std::vector<char>& mode,
                         const Eigen::VectorXd& r, const Eigen::VectorXd& d);

  const KluFactor* factor_for(const std::vector<char>& mode);
  // The free pairs a solve decides (all but those held, below).
  const std::vector<int>& live() const { return *live_; }
  // Holds off the free pairs across a switch that `mode` closes (ModeStructure::shadow) when
  // d_j − α d_s ≥ 0, setting them off in `mode`, and sets live_ to the others. Returns the
  // number held.
  int hold_pairs(std::vector<char>& mode, const Eigen::VectorXd& d);
  // `mode` with those pairs off (held_mode_), or `mode` itself when the circuit has none to hold;
  // sets live_.
  const std::vector<char>& held(const std::vector<char>& mode, const Eigen::VectorXd& d);
  // The mode system through W's factor into u_ (true), or false when the reduced path does not
  // apply to this mode (then the K(σ) factors must be used).
  bool solve_reduced(const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                     const std::vector<char>& mode);
  bool factor_schur(const std::vector<char>& mode);
  // S of `mode` and its factor into `slot` (a cache miss of factor_schur).
  void build_schur(const std::vector<char>& mode, SchurFactor& slot);
  // The columns W⁻¹ B_j of `active` cached (the cache starts over when they would not fit).
  void ensure_columns(const std::vector<int>& active);
  const Eigen::VectorXd& y_column(int j);
  // Mode system for `mode` into u_: reduced if possible, else with K(σ)'s factor; false if
  // K(σ) is singular.
  bool solve_any(const Eigen::VectorXd& r, const Eigen::VectorXd& d, const std::vector<char>& mode);
  void set_values(const std::vector<char>& mode);
  // The mode system of `mode` into u_ by a low-rank update of a cached factor (true), or false
  // when none applies or the cost model prefers a factorization (mode_mlcp_update.cpp).
  bool solve_low_rank(const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                      const std::vector<char>& mode);
  bool plan_low_rank(const std::vector<char>& mode);
  void low_rank_rebase(const std::vector<char>& base_mode, const KluFactor* base);
  double low_rank_row(int j, const std::vector<char>& mode, const Eigen::VectorXd& u) const;
  const Eigen::VectorXd& column(int j) const;
  double low_rank_solve_cost(const KluFactor& base) const;
  double low_rank_miss_cost(const KluFactor& base) const;
  // Offers the analysis's model the mode with every forced pair on and every free pair off
  // (factor_cache.hpp), once per analysis and only when factorizations are costly.
  void offer_template(const std::vector<char>& mode);
  // The rank of a mode as a model: forced pairs on first, then free pairs on.
  int model_score(const std::vector<char>& mode) const;
  // Replaces a singular mode by a nearby one whose K is nonsingular; false if none is found.
  // `quick` (above kDenseTransformMax free pairs): only the last base and the free pairs all off
  // or all on, not the m single flips and the rank search, each a factorization.
  bool find_base(std::vector<char>& mode, bool quick = false);
  void solve_mode(const KluFactor& f, const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                  const std::vector<char>& mode);
  struct Check {
    bool feasible;
    double residual;
    std::vector<int> violated;
    std::vector<double> severity;  // per violated pair: min(λ̂_j, ŵ_j) < 0, scaled as in check()
  };
  // The flip of every violated pair tried from mode `from` by try_flip that left pairs violated:
  // the trial mode and its check (empty `from`: none).
  struct FlipSeed {
    std::vector<char> from, trial;
    Check check;
  };
  FlipSeed flip_seed_;
  Check check(const Eigen::VectorXd& lambda, const Eigen::VectorXd& w, const Eigen::VectorXd& x,
              const Eigen::VectorXd& d, double slack) const;
  // Tries the `answer` of the kept transform at base `mode` (header of TransformBase), whose
  // factor is `base`: true, with the solution and its check, when it passes the check. A
  // singular K(answer) is solved through the kept transform (solve_through).
  bool reuse_answer(const KluFactor& base, const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                    std::vector<char>& mode, Eigen::VectorXd& x, Eigen::VectorXd& lambda,
                    Eigen::VectorXd& w, Check& c);
  // The solution of mode `answer` into u_ through the kept transform `t` at its base (factor
  // `base`), for an `answer` whose K is singular and that differs from the base in at most
  // kLowRankMaxPairs pairs; false if it differs in none or more, or the block of M_σ is singular.
  bool solve_through(const TransformBase& t, const KluFactor& base, const Eigen::VectorXd& r,
                     const Eigen::VectorXd& d, const std::vector<char>& answer);
  // Pivots from base_mode by the policy's LCP solver (mode_mlcp_pivot.cpp).
  // Flips the violated pairs of `c` and keeps the result if it passes the strict check.
  void try_flip(const Eigen::VectorXd& r, const Eigen::VectorXd& d, std::vector<char>& mode,
                Eigen::VectorXd& x, Eigen::VectorXd& lambda, Eigen::VectorXd& w, Check& c);
  // False if no mode's K(σ) can be nonsingular: the rows of all modes stacked (free pairs both
  // ways) lack full column rank (mode_mlcp_base.cpp).
  bool some_mode_can_be_regular(const std::vector<char>& mode);
  // After try_flip failed: single flips of violated pairs, kept while they strictly reduce the
  // violation (mode_mlcp_polish.cpp).
  void polish_by_single_flips(const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                              std::vector<char>& mode, Eigen::VectorXd& x, Eigen::VectorXd& lambda,
                              Eigen::VectorXd& w, Check& c);
  // One run of block principal pivoting from `start`, whose check is `c` (mode_mlcp_block.cpp).
  struct BlockRun {
    enum class End { kSolved, kRounding, kSingular, kLimit } end = End::kLimit;
    std::vector<char> mode;  // the last mode (kSolved, kRounding: the answer; u_ holds it)
    std::vector<char> best;  // the nonsingular mode visited with the fewest infeasible pairs
    std::vector<int> doubt;  // the pairs infeasible at `best` and at the last mode, sorted
    bool current = false;    // u_ holds the solution of `mode` (false: nothing was solved)
  };
  BlockRun block_pivot(const Eigen::VectorXd& r, const Eigen::VectorXd& d, std::vector<char> start,
                       Check c);
  // Flips the pairs `flip` (sorted most violated first) of `trial`, solves and checks its mode
  // system; while that is singular, retries with the more violated half. False (trial
  // unchanged) if even the single most violated pair gives a singular system.
  bool pivot_block(const Eigen::VectorXd& r, const Eigen::VectorXd& d, std::vector<int> flip,
                   std::vector<char>& trial, Check& c);
  // Solves the mode system of `mode` into u_ and checks it; false if it is singular.
  bool evaluate(const Eigen::VectorXd& r, const Eigen::VectorXd& d, const std::vector<char>& mode,
                Check& c);
  // w = C x + D λ + d for the solution in u_.
  void pair_slacks(const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
                   const Eigen::VectorXd& d, Eigen::VectorXd& w) const;
  // Block principal pivoting from `mode` (whose solution x, λ, w and check c are given) to a
  // mode that passes the check (mode_mlcp_block.cpp); the fallback on the pairs in doubt when
  // it stops. False with `outcome` filled when neither finds one.
  bool pivot_by_blocks(const Eigen::VectorXd& r, const Eigen::VectorXd& d, std::vector<char>& mode,
                       Eigen::VectorXd& x, Eigen::VectorXd& lambda, Eigen::VectorXd& w, Check& c,
                       MlcpOutcome& outcome);
  // The transform restricted to the pairs `doubt` at the nonsingular base mode `base_mode`, the
  // others held in their base state, solved by the policy's LCP solver; repeated with the pairs
  // found violated added (mode_mlcp_doubt.cpp).
  bool pivot_on_doubt(std::vector<char> base_mode, std::vector<int> doubt, const Eigen::VectorXd& r,
                      const Eigen::VectorXd& d, std::vector<char>& mode, Eigen::VectorXd& x,
                      Eigen::VectorXd& lambda, Eigen::VectorXd& w, Check& c, MlcpOutcome& outcome);
  // M_UU and q_U of the transform at `base` for the pairs U = doubt (u0_ receives the base
  // solution); columns solved in blocks so that only n + m by a block is held.
  void doubt_transform(const KluFactor& base, const std::vector<char>& base_mode,
                       const std::vector<int>& doubt, const Eigen::VectorXd& r,
                       const Eigen::VectorXd& d, Eigen::MatrixXd& M, Eigen::VectorXd& q);
  void count_dense(long order);
  // Adds the decided pairs closest to switching to `doubt` (mode_mlcp_doubt.cpp); false if it
  // already holds every free pair or kDoubtMax pairs.
  bool widen_doubt(const std::vector<char>& base_mode, const Eigen::VectorXd& d,
                   std::vector<int>& doubt) const;
  // After pivoting: the solution passes the check with the looser tolerance (outcome
  // kInaccurate, true) or not (outcome filled with the failure, false).
  bool accept_loose(const Eigen::VectorXd& lambda, const Eigen::VectorXd& w,
                    const Eigen::VectorXd& x, const Eigen::VectorXd& d, MlcpOutcome& outcome);
  // The guess's mode system solved into u_, or, if it is singular, that of a nonsingular mode
  // put in `mode` (find_base); false with `outcome` filled if none is found.
  bool solve_start(const Eigen::VectorXd& r, const Eigen::VectorXd& d, std::vector<char>& mode,
                   MlcpOutcome& outcome);
  // The dense transform of all free pairs solved by the policy's LCP solver (pivot_with_lemke),
  // then the mode system of its answer split into x, λ, w and checked; block pivoting when the
  // dense solvers fail under the auto policy.
  bool pivot_dense(const Eigen::VectorXd& r, const Eigen::VectorXd& d, std::vector<char>& mode,
                   Eigen::VectorXd& x, Eigen::VectorXd& lambda, Eigen::VectorXd& w, Check& c,
                   MlcpOutcome& outcome);
  // The policy of the mode iteration's LCP solves of order f: the user's, with Lemke's pivot
  // limit lowered under the auto policy (a fallback follows; docs/solvers.md §8).
  LcpPolicy step_policy(int f) const;
  bool pivot_with_lemke(const KluFactor& base, const std::vector<char>& base_mode,
                        const Eigen::VectorXd& r, const Eigen::VectorXd& d, std::vector<char>& mode,
                        MlcpOutcome& outcome);
  void split(const std::vector<char>& mode, const Eigen::VectorXd& d, Eigen::VectorXd& x,
             Eigen::VectorXd& lambda, Eigen::VectorXd& w) const;
};

}  // namespace nsspice::solvers
