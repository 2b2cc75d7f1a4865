// Block principal pivoting on the mode systems (mode_mlcp.hpp, docs/formulation.md §7,
// docs/solvers.md §8): the per-step MLCP with many free pairs, without any dense m×m object.
//
// For a mode σ the mode system K(σ) u = ρ(σ) gives (x, λ, w) with λ_j = 0 (j ∉ σ) and w_j = 0
// (j ∈ σ). When W is nonsingular this is the complementary basic solution of LCP(M, q),
// M = D + C W⁻¹ B, at the basis σ, and flipping pair j in σ is the principal pivot on M_jj.
// The infeasible set of σ is
//
//   I(σ) = { j ∈ σ : λ_j < −tol } ∪ { j ∉ σ : w_j < −tol }      (tolerances of check()).
//
// Iteration (Júdice & Pires 1994, with the counter of Portugal, Júdice & Vicente 1994):
//   ninf = ∞, p = p̄ (= kBackups)
//   while I(σ) ≠ ∅:
//     if |I(σ)| < ninf:      ninf = |I(σ)|, p = p̄, σ ← σ Δ I(σ)        (block pivot)
//     else if p > 0:         p ← p − 1,            σ ← σ Δ I(σ)        (block pivot, backup)
//     else:                  σ ← σ Δ {min I(σ)}                         (Murty's single pivot)
//     solve K(σ) (one sparse refactorization on the fixed pattern, or a cached factor)
//
// Guarantee: for M a P-matrix (every principal minor positive: all PD M, e.g. diodes with
// RON > 0, and M = C W⁻¹ Cᵀ of passive RC networks whose diode branches are independent; the
// inverse-M matrices of diode clamps, which are also hidden Minkowski) the method terminates
// finitely at the unique solution. Murty's least-index scheme alone is finite on P-matrices
// (Murty 1974), and ninf decreases strictly each time a block pivot resets p, so the block
// phase runs at most (p̄ + 1)·m times. For a Minkowski (K-) matrix the block pivots alone
// converge monotonically (Kostreva 1978). Each iteration costs one sparse factorization of
// K(σ) (KLU refactor with the stored symbolic analysis), so a step costs the iterations times
// one factorization, independent of how many pairs each iteration flips.
//
// Singular pivots. A block pivot whose K(σ Δ P) is singular (M not a P-matrix there: a floating
// sub-circuit, a diode across a closed ideal switch, the capacitor of a half-bridge submodule
// shorted by both its diodes) is retried on the more violated half of P (P sorted by the scaled
// violation min(λ̂_j, ŵ_j) of check(), most negative first), halving until K is nonsingular or P
// holds one pair: at most ⌈log₂ |P|⌉ extra factorizations per iteration. On a P-matrix no pivot
// is singular and nothing changes. Without P-matrix there is no guarantee of termination: the
// iteration limit applies, and a single pivot that stays singular ends the iteration.
//
// When the iteration ends that way (or at the limit), the pairs infeasible at the best
// nonsingular mode visited (fewest infeasible pairs) and at the last one are "in doubt", and
// pivot_on_doubt (mode_mlcp_doubt.cpp) solves the transform restricted to them from the best
// mode, adding the pairs its answer violates and widening the set when that LCP has no solution.
// (All the pairs ever infeasible would be a safe but large set: 600 at the start of a 50-submodule
// converter, where the best mode leaves 2.)
//
// References: J. J. Júdice, F. M. Pires, "A block principal pivoting algorithm for large-scale
// strictly monotone linear complementarity problems", Computers & Operations Research 21(5),
// 587–596, 1994. L. F. Portugal, J. J. Júdice, L. N. Vicente, "A comparison of block pivoting
// and interior-point algorithms for linear least squares problems with nonnegative variables",
// Mathematics of Computation 63(208), 625–643, 1994. K. G. Murty, "Note on a Bard-type scheme
// for solving the complementarity problem", Opsearch 11, 123–130, 1974. M. M. Kostreva, "Block
// pivot methods for solving the complementarity problem", Linear Algebra and its Applications
// 21, 207–215, 1978. CPS §4.2 (principal pivoting), AB08 §12.4.
#include <algorithm>
#include <limits>

#include "solvers/lcp/mode_mlcp.hpp"

namespace nsspice::solvers {
namespace {

// p̄: block pivots allowed without a decrease of the infeasible count before single pivots.
constexpr int kBackups = 3;
// Iterations before the pairs in doubt go to the restricted transform.
constexpr int kBlockMaxIterations = 200;

}  // namespace

bool ModeMlcp::evaluate(const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                        const std::vector<char>& mode, Check& c) {
  if (!solve_any(r, d, mode)) return false;
  split(mode, d, ex_, el_, ew_);
  c = check(el_, ew_, ex_, d, 1.0);
  return true;
}

bool ModeMlcp::pivot_block(const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                           std::vector<int> flip, std::vector<char>& trial, Check& c) {
  for (;;) {
    for (int j : flip) trial[j] = !trial[j];
    if (evaluate(r, d, trial, c)) return true;
    for (int j : flip) trial[j] = !trial[j];
    if (flip.size() <= 1) return false;
    flip.resize((flip.size() + 1) / 2);
    ++stats_.block_halvings;
  }
}

ModeMlcp::BlockRun ModeMlcp::block_pivot(const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                                         std::vector<char> trial, Check c) {
  using End = BlockRun::End;
  BlockRun run;
  run.best = trial;  // the nonsingular mode with the fewest infeasible pairs
  size_t best_count = c.violated.size();
  size_t ninf = std::numeric_limits<size_t>::max();
  int backups = kBackups;
  std::vector<int> flip;
  for (int it = 0; it < kBlockMaxIterations; ++it) {
    if (c.feasible || c.violated.empty()) {
      // Feasible signs but a residual above tolerance: rounding, not a wrong mode; the
      // caller's looser check decides.
      run.end = c.feasible ? End::kSolved : End::kRounding;
      break;
    }
    if (c.violated.size() < best_count || it == 0) {
      best_count = c.violated.size();
      run.best = trial;
      run.doubt = c.violated;
    }
    ++stats_.pivots;
    ++stats_.block_iterations;
    if (c.violated.size() < ninf || backups > 0) {  // block pivot (a backup if no decrease)
      backups = c.violated.size() < ninf ? kBackups : backups - 1;
      ninf = std::min(ninf, c.violated.size());
      std::vector<size_t> order(c.violated.size());
      for (size_t k = 0; k < order.size(); ++k) order[k] = k;
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return c.severity[a] < c.severity[b]; });
      flip.clear();
      for (size_t k : order) flip.push_back(c.violated[k]);
    } else {  // Murty's least-index single pivot
      flip.assign(1, *std::min_element(c.violated.begin(), c.violated.end()));
      ++stats_.block_single_pivots;
    }
    if (it == 0 && flip_seed_.from == trial && flip.size() == c.violated.size()) {
      // try_flip did this block pivot already (same r, d): its mode and check, not solved again
      // (u_ may hold another mode's solution: not current).
      trial = std::move(flip_seed_.trial);
      c = std::move(flip_seed_.check);
      flip_seed_.from.clear();
      run.current = false;
      continue;
    }
    run.current = pivot_block(r, d, flip, trial, c);
    if (!run.current) {  // singular even for one pair: not a P-matrix transform here
      run.end = End::kSingular;
      break;
    }
  }
  // In doubt: the pairs infeasible at the best mode and at the last one.
  if (!c.feasible)
    for (int j : c.violated)
      if (std::find(run.doubt.begin(), run.doubt.end(), j) == run.doubt.end())
        run.doubt.push_back(j);
  run.mode = std::move(trial);
  std::sort(run.doubt.begin(), run.doubt.end());
  return run;
}

bool ModeMlcp::pivot_by_blocks(const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                               std::vector<char>& mode, Eigen::VectorXd& x, Eigen::VectorXd& lambda,
                               Eigen::VectorXd& w, Check& c, MlcpOutcome& outcome) {
  using End = BlockRun::End;
  ++stats_.lemke_calls;
  ++stats_.block_calls;
  BlockRun run = block_pivot(r, d, mode, c);
  if (run.end == End::kSolved || run.end == End::kRounding) {
    mode = std::move(run.mode);
    if (!run.current) solve_any(r, d, mode);  // nonsingular: it was solved before
    split(mode, d, x, lambda, w);
    c = check(lambda, w, x, d, 1.0);
    return true;
  }
  return pivot_on_doubt(std::move(run.best), std::move(run.doubt), r, d, mode, x, lambda, w, c,
                        outcome);
}

}  // namespace nsspice::solvers
