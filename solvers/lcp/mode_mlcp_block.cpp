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
// When a visited K(σ) is singular (a non-P transform: floating nodes, singular W) or the
// iteration limit is reached, the pairs that were ever infeasible are "in doubt" and
// pivot_on_doubt (mode_mlcp_doubt.cpp) solves the transform restricted to them from the best
// nonsingular mode visited.
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

bool ModeMlcp::pivot_by_blocks(const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                               std::vector<char>& mode, Eigen::VectorXd& x,
                               Eigen::VectorXd& lambda, Eigen::VectorXd& w, Check& c,
                               MlcpOutcome& outcome) {
  ++stats_.lemke_calls;
  ++stats_.block_calls;
  std::vector<char> in_doubt(static_cast<size_t>(m_), 0);
  std::vector<int> doubt;
  std::vector<char> best_mode = mode;  // the nonsingular mode with the fewest infeasible pairs
  size_t best_count = c.violated.size();
  size_t ninf = std::numeric_limits<size_t>::max();
  int backups = kBackups;
  std::vector<char> trial = mode;
  Check ct = c;
  Eigen::VectorXd xt = x, lt = lambda, wt = w;
  for (int it = 0; it < kBlockMaxIterations; ++it) {
    if (ct.feasible) {
      mode = std::move(trial);
      x = std::move(xt);
      lambda = std::move(lt);
      w = std::move(wt);
      c = std::move(ct);
      return true;
    }
    // Feasible signs but a residual above tolerance: rounding, not a wrong mode; the caller's
    // looser check decides.
    if (ct.violated.empty()) break;
    for (int j : ct.violated)
      if (!in_doubt[static_cast<size_t>(j)]) {
        in_doubt[static_cast<size_t>(j)] = 1;
        doubt.push_back(j);
      }
    if (ct.violated.size() < best_count) {
      best_count = ct.violated.size();
      best_mode = trial;
    }
    ++stats_.pivots;
    ++stats_.block_iterations;
    if (ct.violated.size() < ninf) {
      ninf = ct.violated.size();
      backups = kBackups;
      for (int j : ct.violated) trial[j] = !trial[j];
    } else if (backups > 0) {
      --backups;
      for (int j : ct.violated) trial[j] = !trial[j];
    } else {
      const int j = *std::min_element(ct.violated.begin(), ct.violated.end());
      trial[j] = !trial[j];
      ++stats_.block_single_pivots;
    }
    if (!solve_any(r, d, trial)) break;  // singular K(σ): not a P-matrix transform here
    split(trial, d, xt, lt, wt);
    ct = check(lt, wt, xt, d, 1.0);
  }
  if (ct.feasible || ct.violated.empty()) {
    // Stopped on rounding (see above): hand back the last solution for the loose check.
    if (solve_any(r, d, trial)) {
      mode = std::move(trial);
      split(mode, d, x, lambda, w);
      c = check(lambda, w, x, d, 1.0);
      return true;
    }
  }
  std::sort(doubt.begin(), doubt.end());
  return pivot_on_doubt(std::move(best_mode), std::move(doubt), r, d, mode, x, lambda, w, c,
                        outcome);
}

}  // namespace nsspice::solvers
