// Issue 20: the diode-clamped RC network of bench/clamp_network.py at N = 1000, where hundreds of
// clamps turn on within a few steps. The block principal pivoting path (the default above
// kDenseTransformMax free pairs) against the dense transform of all pairs (the engine before
// it, reached by naming its LCP method): the same mode at every point and the same waveform.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>

#include "helpers.hpp"
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

}  // namespace
}  // namespace nsspice::testing
