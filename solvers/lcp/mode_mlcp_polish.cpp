// Greedy polish of a mode that pivoting left infeasible (mode_mlcp.hpp), the last step before the
// loose acceptance test.
//
// The mode σ's solution (x, λ, w) of K(σ) violates 0 ≤ w ⊥ λ ≥ 0 on a set V of free pairs
// (λ_j < 0 on an "on" pair, w_j < 0 on an "off" pair). Flipping V as one block (try_flip, the
// Júdice–Pires step) may fail when V mixes a wrong pair with pairs whose sign only follows it
// (macromodel clamps and limiters in a feedback loop: λ_j < 0 on one limiter because another is in
// the wrong state). Then single principal pivots σ ↦ σ ⊕ {j}, j ∈ V, are tried, and the one that
// leaves the fewest violated pairs (ties: the smallest total scaled violation) is kept if it is
// strictly better than σ; at most kRounds rounds of at most kWidth trials (each a factorization
// of K(σ ⊕ {j}) or a cache hit). The (count, violation) pair decreases strictly, so it terminates;
// only a mode passing the strict check is accepted. It is a heuristic without a guarantee, used
// only after the methods with guarantees (Lemke on P and copositive-plus matrices, block
// pivoting) ended on a non-P or degenerate problem. Reference: AB08 §12.4 (principal pivots).
#include <numeric>

#include "solvers/lcp/mode_mlcp.hpp"

namespace nsspice::solvers {
namespace {

constexpr int kRounds = 8;
constexpr int kWidth = 16;

double total(const std::vector<double>& severity) {
  return std::accumulate(severity.begin(), severity.end(), 0.0,
                         [](double s, double v) { return s - v; });  // severities are < 0
}

bool better(size_t count, double violation, size_t best_count, double best_violation) {
  return count < best_count || (count == best_count && violation < best_violation);
}

}  // namespace

void ModeMlcp::polish_by_single_flips(const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                                      std::vector<char>& mode, Eigen::VectorXd& x,
                                      Eigen::VectorXd& lambda, Eigen::VectorXd& w, Check& c) {
  struct Candidate {
    std::vector<char> mode;
    Eigen::VectorXd x, lambda, w;
    Check check{};
  };
  for (int round = 0; round < kRounds && !c.feasible; ++round) {
    if (c.violated.empty() || static_cast<int>(c.violated.size()) > kWidth) return;
    size_t best_count = c.violated.size();
    double best_violation = total(c.severity);
    Candidate best;
    for (int j : c.violated) {
      Candidate t{mode, {}, {}, {}, {}};
      t.mode[j] = !t.mode[j];
      if (!solve_in_mode(r, d, t.mode, t.x, t.lambda, t.w)) continue;
      t.check = check(t.lambda, t.w, t.x, d, 1.0);
      const double violation = t.check.feasible ? 0.0 : total(t.check.severity);
      const size_t count = t.check.feasible ? 0 : t.check.violated.size();
      if (!better(count, violation, best_count, best_violation)) continue;
      best_count = count;
      best_violation = violation;
      best = std::move(t);
      if (best.check.feasible) break;
    }
    if (best.mode.empty()) return;  // no single flip improves: give up
    mode = std::move(best.mode);
    x = std::move(best.x);
    lambda = std::move(best.lambda);
    w = std::move(best.w);
    c = std::move(best.check);
  }
}

}  // namespace nsspice::solvers
