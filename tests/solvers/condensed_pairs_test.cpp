// Condensed pairs (solvers/lcp/mode_structure.hpp): a pair whose D row and column hold only
// D_jj > 0 and whose off row is λ_j = 0 (a PWL segment: an ideal diode in series with 1/D_jj) is
// eliminated from K(σ) and enters as a conductance stamp. Checked here:
// * which pairs are condensed, and the order of K (n + the pairs kept);
// * in every mode of a network that mixes segment pairs, ideal diodes (D_jj = 0), a coupled pair
//   (an off-diagonal D entry) and a switch with an off row, ModeStructure::solve and solve_many
//   with the condensed factor give the solution of the full K(σ) u = ρ (uncondensed, solved by
//   Eigen's SparseLU) to 1e-10 relative, for right-hand sides in the node and the pair rows;
// * ModeMlcp on a network of PWL diodes answers each MLCP with the same mode and solution as the
//   dense LCP M = D + C W⁻¹ B solved by Lemke (to 1e-9 relative), its solution satisfying the
//   MLCP's own equations.
#include <gtest/gtest.h>

#include <Eigen/SparseLU>
#include <random>
#include <vector>

#include "lcp_problems.hpp"
#include "solvers/lcp/lemke.hpp"
#include "solvers/lcp/mode_mlcp.hpp"

namespace nsspice::solvers {
namespace {

using Triplets = std::vector<Eigen::Triplet<double, int>>;

// n nodes joined by conductances in a ring, each with a conductance to ground (W nonsingular),
// and m pairs between random node pairs (a, k): λ_j leaves a and enters k (B_aj = −1, B_kj = 1,
// the sign of K's −B), w_j = v_k − v_a + D_jj λ_j + d_j (C_j = B_jᵀ).
struct Network {
  int n, m;
  SparseMatrix w, b, c, d, c_off;
  std::vector<char> forced;
  Network(int nodes, int pairs, unsigned seed, bool mixed) : n(nodes), m(pairs) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> g(0.5, 2.0);
    std::uniform_int_distribution<int> node(0, n - 1);
    Triplets tw, tb, tc, td, toff;
    for (int a = 0; a < n; ++a) {
      const double ring = g(gen), ground = 0.1 * g(gen);
      const int next = (a + 1) % n;
      tw.emplace_back(a, a, ring + ground);
      tw.emplace_back(next, next, ring);
      tw.emplace_back(a, next, -ring);
      tw.emplace_back(next, a, -ring);
    }
    forced.assign(static_cast<size_t>(m), 0);
    for (int j = 0; j < m; ++j) {
      const int a = node(gen);
      int k = node(gen);
      if (k == a) k = (a + 1) % n;
      tb.emplace_back(a, j, -1.0);
      tb.emplace_back(k, j, 1.0);
      tc.emplace_back(j, a, -1.0);
      tc.emplace_back(j, k, 1.0);
      // mixed: pair 0 an ideal diode, pair 1 a switch (forced, off row C_off x + λ = 0 is a
      // resistor's), pairs 2 and 3 coupled through D; the others (and all when !mixed) segments.
      if (mixed && j == 0) continue;
      if (mixed && j == 1) {
        forced[1] = 1;
        toff.emplace_back(j, a, 0.01);
        toff.emplace_back(j, k, -0.01);
        continue;
      }
      td.emplace_back(j, j, 0.05 + 0.5 * g(gen));
      if (mixed && j == 2) td.emplace_back(2, 3, 0.1);
    }
    w = testing::sparse(n, n, tw);
    b = testing::sparse(n, m, tb);
    c = testing::sparse(m, n, tc);
    d = testing::sparse(m, m, td);
    c_off = testing::sparse(m, n, toff);
  }
};

TEST(CondensedPairs, SegmentPairsLeaveKAndTheOthersStay) {
  const Network net(12, 10, 7, true);
  const std::vector<char> condensed = condensed_pairs(net.d, net.c_off);
  // Pair 0 (D_jj = 0), 1 (an off row), 2 and 3 (coupled) stay; 4…9 are condensed.
  const std::vector<char> expected = {0, 0, 0, 0, 1, 1, 1, 1, 1, 1};
  EXPECT_EQ(condensed, expected);
  const ModeStructure s(net.w, net.b, net.c, net.d, net.c_off, net.forced);
  EXPECT_EQ(s.order, 12 + 4);
  const SparseMatrix pattern = mode_matrix_pattern(net.w, net.b, net.c, net.d, net.c_off);
  EXPECT_EQ(pattern.rows(), 16);
  EXPECT_EQ(s.k.rows(), 16);
}

TEST(CondensedPairs, SolveEqualsTheFullSystemInEveryMode) {
  for (unsigned seed : {1u, 2u, 3u}) {
    const Network net(9, 8, seed, true);
    ModeStructure s(net.w, net.b, net.c, net.d, net.c_off, net.forced);
    ASSERT_EQ(static_cast<int>(s.condensed.size()), 4);
    KluSymbolic symbolic;
    ASSERT_EQ(symbolic.analyze(mode_matrix_pattern(net.w, net.b, net.c, net.d, net.c_off)),
              LuStatus::kOk);
    std::mt19937 gen(seed);
    std::normal_distribution<double> normal;
    int checked = 0;
    for (int bits = 0; bits < (1 << net.m); ++bits) {
      std::vector<char> mode(static_cast<size_t>(net.m));
      for (int j = 0; j < net.m; ++j) mode[static_cast<size_t>(j)] = (bits >> j) & 1;
      s.set_values(mode, net.w);
      KluFactor f;
      const SparseMatrix full = s.full_matrix(mode, net.w);
      Eigen::SparseLU<SparseMatrix> lu;
      lu.compute(full);
      const bool full_regular = lu.info() == Eigen::Success;
      if (f.factor(symbolic, s.k) != LuStatus::kOk) {
        EXPECT_FALSE(full_regular && std::abs(lu.logAbsDeterminant()) < 30)
            << "mode " << bits << ": the condensed K is singular, the full one is not";
        continue;
      }
      ASSERT_TRUE(full_regular) << "mode " << bits;
      const int size = net.n + net.m;
      Eigen::MatrixXd rho(size, 3);
      for (int i = 0; i < size; ++i)
        for (int k = 0; k < 3; ++k) rho(i, k) = normal(gen);
      rho(net.n + 5, 1) = 0.0;  // a zero in a condensed pair's row
      Eigen::MatrixXd many = rho;
      s.solve_many(f, mode, many);
      for (int k = 0; k < 3; ++k) {
        Eigen::VectorXd u = rho.col(k);
        s.solve(f, mode, u);
        const Eigen::VectorXd reference = lu.solve(Eigen::VectorXd(rho.col(k)));
        const double scale = reference.lpNorm<Eigen::Infinity>();
        EXPECT_LE((u - reference).lpNorm<Eigen::Infinity>(), 1e-10 * scale) << "mode " << bits;
        EXPECT_LE((many.col(k) - reference).lpNorm<Eigen::Infinity>(), 1e-10 * scale)
            << "mode " << bits;
        EXPECT_LE((full * u - rho.col(k)).lpNorm<Eigen::Infinity>(),
                  1e-10 * (1 + rho.col(k).lpNorm<Eigen::Infinity>()))
            << "mode " << bits;
      }
      ++checked;
    }
    EXPECT_GT(checked, 200) << "seed " << seed;
  }
}

TEST(CondensedPairs, ModeMlcpAnswersLikeTheDenseLcp) {
  const Network net(30, 40, 11, false);  // every pair a segment: all condensed
  KluSymbolic symbolic;
  ASSERT_EQ(symbolic.analyze(mode_matrix_pattern(net.w, net.b, net.c, net.d, net.c_off)),
            LuStatus::kOk);
  ModeMlcp solver(net.w, net.b, net.c, net.d, net.c_off, net.forced, symbolic, 16);
  EXPECT_EQ(solver.structure().order, net.n);
  // The dense LCP: x = W⁻¹ (r + B λ), w = (D + C W⁻¹ B) λ + C W⁻¹ r + d.
  const Eigen::MatrixXd wd(net.w), bd(net.b), cd(net.c), dd(net.d);
  const Eigen::PartialPivLU<Eigen::MatrixXd> wlu(wd);
  const Eigen::MatrixXd m_lcp = dd + cd * wlu.solve(bd);
  std::mt19937 gen(5);
  std::normal_distribution<double> normal;
  std::vector<char> mode(static_cast<size_t>(net.m), 0);
  int changed = 0;
  for (int step = 0; step < 40; ++step) {
    Eigen::VectorXd r(net.n), d(net.m);
    for (int i = 0; i < net.n; ++i) r[i] = normal(gen);
    for (int j = 0; j < net.m; ++j) d[j] = 0.3 * normal(gen);
    const std::vector<char> before = mode;
    Eigen::VectorXd x, lambda, w;
    const MlcpOutcome o = solver.solve(r, d, mode, x, lambda, w);
    ASSERT_TRUE(ok(o)) << o.message;
    changed += mode != before ? 1 : 0;
    const Eigen::VectorXd q = cd * wlu.solve(r) + d;
    const LcpResult ref = solve_lemke(m_lcp, q);
    ASSERT_EQ(ref.status, LcpStatus::kSolved) << ref.message;
    const double scale = 1 + ref.z.lpNorm<Eigen::Infinity>();
    EXPECT_LE((lambda - ref.z).lpNorm<Eigen::Infinity>(), 1e-9 * scale) << "step " << step;
    for (int j = 0; j < net.m; ++j) {  // (a pair at λ_j = w_j = 0 may be either)
      if (ref.z[j] > 1e-7 * scale) {
        EXPECT_TRUE(mode[static_cast<size_t>(j)]) << step << " " << j;
      }
      if (ref.w[j] > 1e-7 * scale) {
        EXPECT_FALSE(mode[static_cast<size_t>(j)]) << step << " " << j;
      }
    }
    // The MLCP's own equations.
    const double xs = 1 + x.lpNorm<Eigen::Infinity>();
    EXPECT_LE((net.w * x - net.b * lambda - r).lpNorm<Eigen::Infinity>(), 1e-10 * xs);
    EXPECT_LE((net.c * x + net.d * lambda + d - w).lpNorm<Eigen::Infinity>(), 1e-10 * xs);
    EXPECT_GE(w.minCoeff(), -1e-10 * xs);
    EXPECT_GE(lambda.minCoeff(), -1e-10 * xs);
    EXPECT_LE(lambda.cwiseProduct(w).cwiseAbs().maxCoeff(), 1e-10 * xs * xs);
  }
  EXPECT_GT(changed, 10);
}

}  // namespace
}  // namespace nsspice::solvers
