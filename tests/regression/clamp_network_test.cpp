// Issue 20: the diode-clamped RC network of bench/clamp_network.py at N = 1000, where hundreds of
// clamps turn on within a few steps. The block principal pivoting path (the default above
// kDenseTransformMax free pairs) against the dense transform of all pairs (the engine before
// it, reached by naming its LCP method): the same mode at every point and the same waveform.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "helpers.hpp"
#include "solvers/lcp/mode_mlcp.hpp"
#include "solvers/lcp/policy.hpp"

namespace nsspice::testing {
namespace {

// bench/clamp_network.py's netlist (nsspice form), to `t_end`.
std::string clamp_network(int n, const std::string& t_end) {
  std::ostringstream s;
  s << "diode-clamped RC network\nV1 in 0 SIN(-0.05 1 1k)\n";
  s.precision(6);
  for (int k = 1; k <= n; ++k) {
    s << "RF" << k << " in n" << k << " 1k\n";
    s << "C" << k << " n" << k << " 0 " << 10e-9 * (1 + 2.0 * (k % 7) / 7) << "\n";
    s << "D" << k << " n" << k << " 0 DI\n";
    if (k < n) s << "RC" << k << " n" << k << " n" << k + 1 << " 100\n";
  }
  s << ".model DI D\n.tran 1u " << t_end << "\n.end\n";
  return s.str();
}

TEST(ClampNetwork, BlockPivotingGivesTheWaveformOfTheDenseTransformAt1000Sections) {
  const std::string text = clamp_network(1000, "60u");
  circuit::TransientOptions fixed;  // the fixed-step θ-scheme, whatever the default stepping
  fixed.adaptive = false;
  const Waveforms blocks = simulate_fixed(text, fixed);
  circuit::TransientOptions dense_opt = fixed;
  dense_opt.lcp_solver = solvers::LcpSolverKind::kMurty;  // the old path's choice on this M
  const Waveforms dense = simulate_fixed(text, dense_opt);
  ASSERT_TRUE(blocks.result.ok()) << blocks.result.summary.message;
  ASSERT_TRUE(dense.result.ok()) << dense.result.summary.message;
  const auto& sb = blocks.result.stats;
  const auto& sd = dense.result.stats;
  EXPECT_GT(sb.lemke_calls, 0) << "no step needed pivoting: the test does not test anything";
  EXPECT_EQ(sb.lcp_methods[static_cast<size_t>(solvers::LcpSolverKind::kMurty)], 0);
  EXPECT_GT(sd.lcp_methods[static_cast<size_t>(solvers::LcpSolverKind::kMurty)], 0);
  EXPECT_EQ(sb.mode_changes, sd.mode_changes);
  ASSERT_EQ(blocks.x.size(), dense.x.size());
  double x_err = 0, x_scale = 0;
  long conducting = 0;
  for (size_t p = 0; p < blocks.x.size(); ++p) {
    x_err = std::max(x_err, (blocks.x[p] - dense.x[p]).lpNorm<Eigen::Infinity>());
    x_scale = std::max(x_scale, dense.x[p].lpNorm<Eigen::Infinity>());
    for (Eigen::Index j = 0; j < dense.lambda[p].size(); ++j) {
      // The mode: a conducting pair has λ_j > 0 (no degenerate pair on this grid: the sine's
      // offset keeps its crossings off the step times).
      ASSERT_EQ(blocks.lambda[p][j] > 0, dense.lambda[p][j] > 0) << "point " << p << " pair " << j;
      conducting += dense.lambda[p][j] > 0;
    }
  }
  EXPECT_GT(conducting, 1000);
  EXPECT_LE(x_err, 1e-9 * x_scale);
}

// The most pairs whose state (λ_j > 0: conducting) differs between consecutive points.
long max_pairs_changed(const Waveforms& run) {
  long most = 0;
  for (size_t p = 1; p < run.lambda.size(); ++p) {
    long changed = 0;
    for (Eigen::Index j = 0; j < run.lambda[p].size(); ++j)
      changed += (run.lambda[p][j] > 0) != (run.lambda[p - 1][j] > 0);
    most = std::max(most, changed);
  }
  return most;
}

// Memory of mass switching at the circuit level (issue 20): over the whole 2 ms (four events at
// which all 1000 clamps switch within one step), no dense matrix of order above kDoubtMax — the
// dense transform of all pairs would be 1000 × 1000 — with fixed steps (block pivoting) and with
// the default error control (location of the switching instants), and the factor caches of all
// step sizes within the run's one budget. The same counter sees the dense transform when a method
// is named (--lcp-solver murty), so that the bound fails if the dense fallback on all pairs came
// back.
TEST(ClampNetwork, MassSwitchingBuildsNoDenseMatrixOfAllPairs) {
  const int n = 1000;
  const std::string text = clamp_network(n, "2m");
  circuit::TransientOptions fixed;
  fixed.adaptive = false;
  const Waveforms blocks = simulate_fixed(text, fixed);
  ASSERT_TRUE(blocks.result.ok()) << blocks.result.summary.message;
  const auto& sb = blocks.result.stats;
  EXPECT_GT(sb.lemke_calls, 0) << "no step needed pivoting: the test does not test anything";
  EXPECT_GE(max_pairs_changed(blocks), 9 * n / 10);
  EXPECT_GT(sb.max_dense_order, 0);
  EXPECT_LE(sb.max_dense_order, solvers::kDoubtMax);
  EXPECT_LT(sb.max_dense_order, n);
  EXPECT_GT(sb.factor_peak_bytes, 0);
  EXPECT_LE(sb.factor_peak_bytes, sb.factor_budget_bytes);

  const Waveforms adaptive = simulate(text);
  ASSERT_TRUE(adaptive.result.ok()) << adaptive.result.summary.message;
  const auto& sa = adaptive.result.stats;
  EXPECT_GE(max_pairs_changed(adaptive), 9 * n / 10);
  EXPECT_LE(sa.max_dense_order, solvers::kDoubtMax);
  EXPECT_GT(sa.step_solvers, 32) << "error control met few step sizes: the budget is not shared";
  EXPECT_LE(sa.factor_peak_bytes, sa.factor_budget_bytes);

  circuit::TransientOptions dense_opt = fixed;
  dense_opt.lcp_solver = solvers::LcpSolverKind::kMurty;
  const Waveforms dense = simulate_fixed(clamp_network(n, "60u"), dense_opt);
  ASSERT_TRUE(dense.result.ok()) << dense.result.summary.message;
  EXPECT_GE(dense.result.stats.max_dense_order, n);
}

// The solvers of the step sizes share the step-size independent structures of the mode systems
// (ModeStructure: K's pattern, the pair rows, C, D, B and their norms): one is built per run,
// and each step size adds only its W, a fraction of the shared part.
TEST(ClampNetwork, StepSizesShareTheModeStructures) {
  const Waveforms adaptive = simulate(clamp_network(1000, "1m"));
  ASSERT_TRUE(adaptive.result.ok()) << adaptive.result.summary.message;
  const auto& s = adaptive.result.stats;
  EXPECT_GT(s.step_solvers, 16) << "error control met few step sizes: nothing to share";
  EXPECT_EQ(s.mode_structures, 1);
  EXPECT_GT(s.structure_bytes, 0);
  EXPECT_GT(s.max_solver_bytes, 0);
  EXPECT_LT(s.max_solver_bytes, 0.5 * s.structure_bytes);
}

// Large circuits factor deterministically (factor_cache.hpp): whether a mode's factorization is a
// refactored copy of the model or a fresh one follows from KLU's counts, not from timings, so two
// runs give the same pivot orders and the same numbers to the last bit. 1000 sections: the mode
// matrices have over kModelMinNonzeros entries, and the model answers misses.
TEST(ClampNetwork, RerunsOfALargeNetworkAreBitIdentical) {
  const std::string text = clamp_network(1000, "2m");
  circuit::TransientOptions fixed;
  fixed.adaptive = false;
  const Waveforms first = simulate_fixed(text, fixed);
  const Waveforms second = simulate_fixed(text, fixed);
  ASSERT_TRUE(first.result.ok()) << first.result.summary.message;
  ASSERT_TRUE(second.result.ok()) << second.result.summary.message;
  EXPECT_GT(first.result.stats.refactorizations, 0) << "the model was never used";
  EXPECT_EQ(first.result.stats.factorizations, second.result.stats.factorizations);
  EXPECT_EQ(first.result.stats.refactorizations, second.result.stats.refactorizations);
  ASSERT_EQ(first.x.size(), second.x.size());
  for (size_t p = 0; p < first.x.size(); ++p) {
    ASSERT_EQ(first.t[p], second.t[p]) << "point " << p;
    for (Eigen::Index i = 0; i < first.x[p].size(); ++i)
      ASSERT_EQ(first.x[p][i], second.x[p][i]) << "point " << p << " unknown " << i;
    for (Eigen::Index j = 0; j < first.lambda[p].size(); ++j)
      ASSERT_EQ(first.lambda[p][j], second.lambda[p][j]) << "point " << p << " pair " << j;
  }
}

}  // namespace
}  // namespace nsspice::testing
