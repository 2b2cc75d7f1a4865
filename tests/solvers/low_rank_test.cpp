// Low-rank mode solves (solvers/lcp/mode_mlcp_update.cpp): a mode a few pairs away from a cached
// factor is solved by a Woodbury correction instead of a factorization. Checked on a sequence of
// MLCPs where a few clamps switch from one solve to the next (the steps of a clamped RC chain fed
// by phase-shifted sources): with and without the updates, the same mode at every solve and the
// same solution to 1e-10, each solution checked against the MLCP's own equations; the updates
// are used and save factorizations; their dense matrices stay within kLowRankMaxPairs.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "lcp_problems.hpp"
#include "solvers/lcp/mode_mlcp.hpp"

namespace nsspice::solvers {
namespace {

// A chain of n nodes, node a fed by conductance g_f from a source of phase φ_a, coupled to its
// neighbours, with a capacitor's C/h to ground and an ideal diode clamping it at 0 V (λ_a leaves
// node a, w_a = −v_a).
struct ClampChain {
  int n;
  SparseMatrix w, b, c, d, c_off;
  Eigen::VectorXd g_f, phase;
  explicit ClampChain(int nodes) : n(nodes), g_f(nodes), phase(nodes) {
    std::vector<Eigen::Triplet<double, int>> tw, tb, tc;
    for (int a = 0; a < n; ++a) {
      g_f[a] = 1e-3 * (1 + (a % 5) / 5.0);
      phase[a] = 0.3 * std::sin(0.37 * a) + 2e-4 * a;
      double diag = g_f[a] + 1e-8 / 1e-6;
      if (a + 1 < n) {
        tw.emplace_back(a, a + 1, -1e-2);
        tw.emplace_back(a + 1, a, -1e-2);
        diag += 1e-2;
      }
      if (a > 0) diag += 1e-2;
      tw.emplace_back(a, a, diag);
      tb.emplace_back(a, a, -1.0);
      tc.emplace_back(a, a, -1.0);
    }
    w = testing::sparse(n, n, tw);
    b = testing::sparse(n, n, tb);
    c = testing::sparse(n, n, tc);
    d = SparseMatrix(n, n);
    c_off = SparseMatrix(n, n);
  }
  // The right-hand side of solve k: the sources at ω t_k.
  Eigen::VectorXd r(int k) const {
    Eigen::VectorXd out(n);
    for (int a = 0; a < n; ++a) out[a] = g_f[a] * std::sin(0.004 * k - 0.05 + phase[a]);
    return out;
  }
};

struct ChainRun {
  std::vector<std::vector<char>> modes;
  std::vector<Eigen::VectorXd> x;
  ModeMlcpStats stats;
  long factorizations = 0;
};

ChainRun run_chain(const ClampChain& ch, int solves, bool low_rank) {
  KluSymbolic symbolic;
  EXPECT_EQ(symbolic.analyze(mode_matrix_pattern(ch.w, ch.b, ch.c, ch.d, ch.c_off)), LuStatus::kOk);
  ModeMlcp solver(ch.w, ch.b, ch.c, ch.d, ch.c_off, std::vector<char>(ch.n, 0), symbolic, 64);
  solver.set_low_rank(low_rank);
  ChainRun out;
  std::vector<char> mode(static_cast<size_t>(ch.n), 0);
  const Eigen::VectorXd dvec = Eigen::VectorXd::Zero(ch.n);
  Eigen::VectorXd x, lambda, w;
  for (int k = 0; k < solves; ++k) {
    const Eigen::VectorXd r = ch.r(k);
    const MlcpOutcome o = solver.solve(r, dvec, mode, x, lambda, w);
    EXPECT_EQ(o.status, LcpStatus::kSolved) << "solve " << k << ": " << o.message;
    // The MLCP's own equations, independently of the solver.
    EXPECT_LE((ch.w * x - ch.b * lambda - r).lpNorm<Eigen::Infinity>(),
              1e-12 * r.lpNorm<Eigen::Infinity>() + 1e-18);
    const Eigen::VectorXd w_own = ch.c * x;
    for (int a = 0; a < ch.n; ++a) {
      EXPECT_GE(lambda[a], -1e-12 * lambda.lpNorm<Eigen::Infinity>()) << k << " " << a;
      EXPECT_GE(w_own[a], -1e-12 * x.lpNorm<Eigen::Infinity>()) << k << " " << a;
      EXPECT_LE(std::min(std::abs(lambda[a]) / (lambda.lpNorm<Eigen::Infinity>() + 1e-300),
                         std::abs(w_own[a]) / (x.lpNorm<Eigen::Infinity>() + 1e-300)),
                1e-10);
    }
    out.modes.push_back(mode);
    out.x.push_back(x);
  }
  out.stats = solver.stats();
  out.factorizations = solver.cache().factorizations() + solver.cache().refactorizations();
  return out;
}

TEST(LowRankModes, SameModesAndSolutionsAsFactorizationsOnAClampChain) {
  const ClampChain ch(2000);  // K: 4000 unknowns, > kModelMinNonzeros entries
  const int solves = 120;
  const ChainRun with = run_chain(ch, solves, true);
  const ChainRun without = run_chain(ch, solves, false);
  ASSERT_EQ(with.modes.size(), without.modes.size());
  long switching = 0;
  for (size_t k = 0; k < with.modes.size(); ++k) {
    ASSERT_EQ(with.modes[k], without.modes[k]) << "solve " << k;
    EXPECT_LE((with.x[k] - without.x[k]).lpNorm<Eigen::Infinity>(),
              1e-10 * without.x[k].lpNorm<Eigen::Infinity>())
        << "solve " << k;
    if (k > 0 && with.modes[k] != with.modes[k - 1]) ++switching;
  }
  EXPECT_GT(switching, 20) << "too few mode changes: the test does not test anything";
  EXPECT_EQ(without.stats.low_rank_modes, 0);
  EXPECT_GT(with.stats.low_rank_modes, 10);
  EXPECT_GE(with.stats.low_rank_solves, with.stats.low_rank_modes);
  EXPECT_LT(with.factorizations, without.factorizations);
  EXPECT_LE(with.stats.max_dense_order, kLowRankMaxPairs);
}

TEST(LowRankModes, SmallMatricesAreAlwaysFactored) {
  const ClampChain ch(300);  // under kModelMinNonzeros entries: factorizations are cheap
  const ChainRun with = run_chain(ch, 60, true);
  EXPECT_EQ(with.stats.low_rank_modes, 0);
}

}  // namespace
}  // namespace nsspice::solvers
