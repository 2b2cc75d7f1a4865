// Block principal pivoting on sparse factors (mode_mlcp_block.cpp, mode_mlcp_doubt.cpp,
// sparse_lcp.hpp): a cycling example of the plain block rule, random sparse P-matrix LCPs and
// hidden-Minkowski MLCPs of RC networks with diode clamps (10³–10⁴ pairs) against the dense
// solvers where they can run and against independent residuals where they cannot, the count of
// dense objects, and the stored problem suite.
#include <gtest/gtest.h>

#include <Eigen/SparseLU>
#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "lcp_check.hpp"
#include "lcp_problems.hpp"
#include "solvers/lcp/lcp_dump.hpp"
#include "solvers/lcp/sparse_lcp.hpp"

namespace nsspice::solvers {
namespace {

using Triplets = std::vector<Eigen::Triplet<double, int>>;

using testing::sparse;

// A 3×3 P-matrix (all 7 principal minors positive) on which the plain block rule σ ← σ Δ I(σ)
// cycles from z = 0: {} → {1,2} → {2,3} → {} (found by a search over small integer matrices;
// that the plain rule can cycle on P-matrices is Murty's observation, which his least-index
// rule fixes).
const Eigen::Matrix3d kCyclingM = (Eigen::Matrix3d() << 1, 2, -4, 1, 3, -4, 4, 0, 3).finished();
const Eigen::Vector3d kCyclingQ(-1, -2, 2);

// The plain block rule in dense arithmetic; true if it revisits a basis within `limit` steps.
bool plain_block_rule_cycles(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, int limit) {
  const int n = static_cast<int>(q.size());
  std::set<std::vector<char>> seen;
  std::vector<char> s(static_cast<size_t>(n), 0);
  for (int it = 0; it < limit; ++it) {
    if (!seen.insert(s).second) return true;
    std::vector<int> idx;
    for (int j = 0; j < n; ++j)
      if (s[j]) idx.push_back(j);
    Eigen::VectorXd z = Eigen::VectorXd::Zero(n);
    if (!idx.empty()) {
      Eigen::MatrixXd a(idx.size(), idx.size());
      Eigen::VectorXd b(idx.size());
      for (size_t i = 0; i < idx.size(); ++i) {
        b[i] = -q[idx[i]];
        for (size_t k = 0; k < idx.size(); ++k) a(i, k) = M(idx[i], idx[k]);
      }
      const Eigen::VectorXd zi = a.partialPivLu().solve(b);
      for (size_t i = 0; i < idx.size(); ++i) z[idx[i]] = zi[i];
    }
    const Eigen::VectorXd w = M * z + q;
    bool any = false;
    for (int j = 0; j < n; ++j)
      if ((s[j] && z[j] < -1e-12) || (!s[j] && w[j] < -1e-12)) {
        s[j] = !s[j];
        any = true;
      }
    if (!any) return false;
  }
  return false;
}

// z solves LCP(M, q) with sparse M: w recomputed, natural-map residual ≤ 1e-9·scale.
::testing::AssertionResult solves_sparse(const SparseMatrix& M, const Eigen::VectorXd& q,
                                         const LcpResult& r) {
  if (!has_answer(r.status))
    return ::testing::AssertionFailure() << to_string(r.status) << ": " << r.message;
  const Eigen::VectorXd w = M * r.z + q;
  double row_max = 0;
  for (int k = 0; k < M.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(M, k); it; ++it)
      row_max = std::max(row_max, std::abs(it.value()));
  const double scale =
      std::max({1.0, q.lpNorm<Eigen::Infinity>(), row_max * r.z.lpNorm<Eigen::Infinity>()});
  const double res = lcp_residual(r.z, w);
  if (res > 1e-9 * scale) return ::testing::AssertionFailure() << "residual " << res;
  return ::testing::AssertionSuccess();
}

TEST(BlockPivoting, CyclingExampleOfThePlainBlockRuleTerminates) {
  ASSERT_TRUE(plain_block_rule_cycles(kCyclingM, kCyclingQ, 10));
  const SparseLcpResult r = solve_sparse_lcp(kCyclingM.sparseView(), kCyclingQ);
  ASSERT_TRUE(solves_sparse(kCyclingM.sparseView(), kCyclingQ, r.lcp));
  EXPECT_EQ(r.lcp.status, LcpStatus::kSolved);
  EXPECT_GT(r.stats.block_single_pivots, 0) << "the least-index safeguard was not needed";
  EXPECT_EQ(r.stats.doubt_calls, 0);
  const LcpResult lemke = solve_lemke(kCyclingM, kCyclingQ);
  ASSERT_EQ(lemke.status, LcpStatus::kSolved);
  EXPECT_LE((r.lcp.z - lemke.z).lpNorm<Eigen::Infinity>(), 1e-12);
}

TEST(BlockPivoting, MurtyExponentialExampleTerminates) {
  // Murty's example (tests/data/lcp/murty_exponential_10): least-index principal pivoting alone
  // takes 2ⁿ − 1 = 1023 pivots; the block rule with the safeguard ends at z* = e_n.
  const LcpDump dump = testing::murty_example_dump(10);
  const SparseMatrix M = dump.M.sparseView();
  const SparseLcpResult r = solve_sparse_lcp(M, dump.q);
  ASSERT_TRUE(solves_sparse(M, dump.q, r.lcp));
  Eigen::VectorXd z_star = Eigen::VectorXd::Zero(10);
  z_star[9] = 1.0;
  EXPECT_LE((r.lcp.z - z_star).lpNorm<Eigen::Infinity>(), 1e-12);
  EXPECT_EQ(r.stats.doubt_calls, 0);
  EXPECT_LT(r.stats.block_iterations, 1023);
}

TEST(BlockPivoting, ManyCopiesOfTheCyclingExampleAboveTheDenseLimit) {
  // 120 uncoupled copies (360 pairs > kDenseTransformMax): the default path pivots by blocks.
  const int copies = 120, m = 3 * copies;
  Triplets t;
  Eigen::VectorXd q(m);
  for (int c = 0; c < copies; ++c)
    for (int i = 0; i < 3; ++i) {
      q[3 * c + i] = kCyclingQ[i] * (1.0 + 0.01 * c);
      for (int k = 0; k < 3; ++k)
        if (kCyclingM(i, k) != 0) t.emplace_back(3 * c + i, 3 * c + k, kCyclingM(i, k));
    }
  const SparseMatrix M = sparse(m, m, t);
  const SparseLcpResult r = solve_sparse_lcp(M, q, kDenseTransformMax);
  ASSERT_TRUE(solves_sparse(M, q, r.lcp));
  EXPECT_GT(r.stats.block_calls, 0);
  const LcpResult lemke = solve_lemke(Eigen::MatrixXd(M), q);
  ASSERT_EQ(lemke.status, LcpStatus::kSolved);
  EXPECT_LE((r.lcp.z - lemke.z).lpNorm<Eigen::Infinity>(), 1e-10);
}

// Nonsymmetric, strictly row diagonally dominant with a positive diagonal (hence a P-matrix),
// `per_row` off-diagonal entries in [−1, 1] per row within a band of ±30 (a circuit's locality:
// uniformly random columns would make any sparse LU fill in completely); q uniform in [−1, 1].
std::pair<SparseMatrix, Eigen::VectorXd> random_p_lcp(int m, int per_row, unsigned seed,
                                                      int band = 30) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::uniform_int_distribution<int> offset(-band, band);
  Triplets t;
  Eigen::VectorXd q(m);
  for (int i = 0; i < m; ++i) {
    double sum = 0;
    for (int k = 0; k < per_row; ++k) {
      const int j = i + offset(gen);
      if (j == i || j < 0 || j >= m) continue;
      const double v = u(gen);
      t.emplace_back(i, j, v);
      sum += std::abs(v);
    }
    t.emplace_back(i, i, sum + 0.1 + 0.5 * (u(gen) + 1.0));
    q[i] = u(gen);
  }
  return {sparse(m, m, t), q};
}

TEST(BlockPivoting, RandomSparsePMatrixAgreesWithTheDenseSolversAt1000Pairs) {
  for (unsigned seed : {1u, 2u}) {
    const auto [M, q] = random_p_lcp(1000, 4, seed);
    const SparseLcpResult r = solve_sparse_lcp(M, q);
    ASSERT_TRUE(solves_sparse(M, q, r.lcp)) << "seed " << seed;
    EXPECT_LE(r.stats.max_dense_order, kLowRankMaxPairs);  // low-rank T only
    const Eigen::MatrixXd dense(M);
    for (LcpSolverKind kind : {LcpSolverKind::kLemke, LcpSolverKind::kAuto}) {
      const LcpResult ref = testing::solve_with(kind, dense, q);
      ASSERT_TRUE(testing::is_solution(dense, q, ref)) << to_string(kind);
      // A P-matrix LCP has one solution.
      EXPECT_LE((r.lcp.z - ref.z).lpNorm<Eigen::Infinity>(), 1e-9 * (1 + ref.z.norm()))
          << to_string(kind) << ", seed " << seed;
    }
  }
}

// A large sparse LCP through the block path: solved to an independent residual, no dense object
// (but the T of low-rank mode solves, at most kLowRankMaxPairs square), no fallback to the pairs in
// doubt, more than `min_on` pairs changed from the start z = 0 in at most `max_iterations` sparse
// factorizations (not one per pair).
void expect_large_solve(const SparseMatrix& M, const Eigen::VectorXd& q, long min_on,
                        long max_iterations, SparseLcpResult& r) {
  r = solve_sparse_lcp(M, q);
  ASSERT_TRUE(solves_sparse(M, q, r.lcp));
  EXPECT_EQ(r.lcp.status, LcpStatus::kSolved);
  EXPECT_LE(r.stats.max_dense_order, kLowRankMaxPairs);  // low-rank T only
  EXPECT_EQ(r.stats.doubt_calls, 0);
  long on = 0;
  for (char b : r.lcp.z_basic) on += b;
  EXPECT_GT(on, min_on);
  EXPECT_LE(r.stats.block_iterations, max_iterations);
}

TEST(BlockPivoting, RandomSparsePMatrixAt10000PairsNoDenseObject) {
  const auto [M, q] = random_p_lcp(10000, 4, 7);
  SparseLcpResult r;
  expect_large_solve(M, q, 1000, 30, r);
}

TEST(BlockPivoting, RandomSparsePMatrixAt100000Pairs) {
  // Band ±4: the sparse factorizations of 2·10⁵ unknowns stay cheap (the test's time).
  const auto [M, q] = random_p_lcp(100000, 2, 8, 4);
  SparseLcpResult r;
  expect_large_solve(M, q, 10000, 40, r);
}

// A Minkowski matrix (a Z-matrix that is a P-matrix: off-diagonal entries ≤ 0, row diagonally
// dominant with a positive diagonal), nonsymmetric, each pair coupled to its neighbours at
// distances 1 and `stride` (a strip of a grid); q uniform in [−1, 1]. The block pivots alone
// converge monotonically on it (Kostreva 1978).
std::pair<SparseMatrix, Eigen::VectorXd> minkowski_lcp(int m, int stride, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Triplets t;
  Eigen::VectorXd q(m), diag = Eigen::VectorXd::Constant(m, 0.05);
  for (int a = 0; a < m; ++a) {
    for (int b : {a + 1, a + stride}) {
      if (b >= m) continue;
      const double x = u(gen), y = u(gen);  // a nonsymmetric coupling
      t.emplace_back(a, b, -x);
      t.emplace_back(b, a, -y);
      diag[a] += x;
      diag[b] += y;
    }
    q[a] = 2 * u(gen) - 1;
  }
  for (int a = 0; a < m; ++a) t.emplace_back(a, a, diag[a]);
  return {sparse(m, m, t), q};
}

TEST(BlockPivoting, MinkowskiLcpAgreesWithLemkeAt1000PairsAndSolvesAt20000) {
  {
    const auto [M, q] = minkowski_lcp(1000, 8, 3);
    const SparseLcpResult r = solve_sparse_lcp(M, q);
    ASSERT_TRUE(solves_sparse(M, q, r.lcp));
    EXPECT_EQ(r.stats.block_single_pivots, 0);  // monotone: no safeguard needed
    const LcpResult lemke = solve_lemke(Eigen::MatrixXd(M), q);
    ASSERT_EQ(lemke.status, LcpStatus::kSolved);
    EXPECT_LE((r.lcp.z - lemke.z).lpNorm<Eigen::Infinity>(), 1e-9 * (1 + lemke.z.norm()));
  }
  const auto [M, q] = minkowski_lcp(20000, 8, 4);
  SparseLcpResult r;
  expect_large_solve(M, q, 2000, 40, r);
  EXPECT_EQ(r.stats.block_single_pivots, 0);
}

// One backward-Euler step of an RC grid (g × g nodes, random conductances between neighbours,
// C to ground), every node clamped by an ideal diode to a rail at 0 V (pair j: λ_j from node j
// to the rail, w_j = −v_j), random injected currents r. W is an M-matrix, M = C W⁻¹ B = (W⁻¹)
// is an inverse M-matrix: hidden Minkowski and positive definite.
struct ClampGrid {
  int n;
  SparseMatrix w, b, c, d, c_off;
  Eigen::VectorXd r, dvec;
  ClampGrid(int g, unsigned seed) : n(g * g) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    Triplets tw, tb, tc;
    Eigen::VectorXd diag = Eigen::VectorXd::Constant(n, 1e-9 / 1e-6);  // C/h
    auto link = [&](int a, int k) {
      const double gab = 1e-3 * (0.5 + u(gen));
      tw.emplace_back(a, k, -gab);
      tw.emplace_back(k, a, -gab);
      diag[a] += gab;
      diag[k] += gab;
    };
    for (int i = 0; i < g; ++i)
      for (int j = 0; j < g; ++j) {
        const int a = i * g + j;
        if (j + 1 < g) link(a, a + 1);
        if (i + 1 < g) link(a, a + g);
        tb.emplace_back(a, a, -1.0);  // λ leaves node a
        tc.emplace_back(a, a, -1.0);  // w = 0 − v_a
      }
    for (int a = 0; a < n; ++a) tw.emplace_back(a, a, diag[a]);
    w = sparse(n, n, tw);
    b = sparse(n, n, tb);
    c = sparse(n, n, tc);
    d = SparseMatrix(n, n);
    c_off = SparseMatrix(n, n);
    r.resize(n);
    for (int a = 0; a < n; ++a) r[a] = 1e-3 * (2 * u(gen) - 1);
    dvec = Eigen::VectorXd::Zero(n);
  }
};

struct GridSolve {
  MlcpOutcome outcome;
  Eigen::VectorXd x, lambda, w;
  std::vector<char> mode;
  ModeMlcpStats stats;
};

GridSolve solve_grid(const ClampGrid& gr, int dense_transform_max) {
  KluSymbolic symbolic;
  EXPECT_EQ(symbolic.analyze(mode_matrix_pattern(gr.w, gr.b, gr.c, gr.d, gr.c_off)), LuStatus::kOk);
  ModeMlcp solver(gr.w, gr.b, gr.c, gr.d, gr.c_off, std::vector<char>(gr.n, 0), symbolic, 8);
  solver.set_dense_transform_max(dense_transform_max);
  GridSolve s;
  s.mode.assign(static_cast<size_t>(gr.n), 0);
  s.outcome = solver.solve(gr.r, gr.dvec, s.mode, s.x, s.lambda, s.w);
  s.stats = solver.stats();
  return s;
}

// The MLCP's own equations, independently of the solver.
void expect_mlcp_solution(const ClampGrid& gr, const GridSolve& s) {
  ASSERT_TRUE(has_answer(s.outcome.status)) << s.outcome.message;
  const Eigen::VectorXd kcl = gr.w * s.x - gr.b * s.lambda - gr.r;
  EXPECT_LE(kcl.lpNorm<Eigen::Infinity>(), 1e-12 * gr.r.lpNorm<Eigen::Infinity>() * gr.n);
  const Eigen::VectorXd w = gr.c * s.x + gr.dvec;
  EXPECT_LE((w - s.w).lpNorm<Eigen::Infinity>(), 1e-14);
  const double v_scale = s.x.lpNorm<Eigen::Infinity>();
  EXPECT_LE(lcp_residual(s.lambda / (s.lambda.lpNorm<Eigen::Infinity>() + 1e-300), w / v_scale),
            1e-9);
}

TEST(BlockPivoting, HiddenMinkowskiClampGridAgreesWithTheDenseTransform) {
  // 32 × 32 = 1024 pairs: the dense path (all pairs, the old engine) can still run.
  const ClampGrid gr(32, 11);
  const GridSolve blocks = solve_grid(gr, kDenseTransformMax);
  const GridSolve dense = solve_grid(gr, 1 << 30);
  expect_mlcp_solution(gr, blocks);
  expect_mlcp_solution(gr, dense);
  EXPECT_GT(blocks.stats.block_calls, 0);
  EXPECT_LE(blocks.stats.max_dense_order, kLowRankMaxPairs);  // low-rank T only
  EXPECT_EQ(dense.stats.max_dense_order, gr.n);  // the counter sees the old m × m transform
  EXPECT_EQ(blocks.mode, dense.mode);
  EXPECT_LE((blocks.x - dense.x).lpNorm<Eigen::Infinity>(),
            1e-10 * dense.x.lpNorm<Eigen::Infinity>());
  EXPECT_LE((blocks.lambda - dense.lambda).lpNorm<Eigen::Infinity>(),
            1e-10 * dense.lambda.lpNorm<Eigen::Infinity>());
}

TEST(BlockPivoting, NoDenseObjectAbove1000PairsOnA10000PairGrid) {
  const ClampGrid gr(100, 5);
  const GridSolve s = solve_grid(gr, kDenseTransformMax);
  expect_mlcp_solution(gr, s);
  EXPECT_EQ(s.outcome.status, LcpStatus::kSolved);
  long on = 0;
  for (char b : s.mode) on += b;
  EXPECT_GT(on, 1000);
  EXPECT_GT(s.stats.block_calls, 0);
  EXPECT_LE(s.stats.max_dense_order, 1000) << "a dense object of order " << s.stats.max_dense_order;
}

// `copies` Siconos DiodeBridges in MNA form, one backward-Euler step (h = 1 µs): unknowns per
// bridge v_a, v_l, v_r, i_L; C = 1 µF at a, L = 10 mH from a to ground, R = 1 kΩ from l to r,
// diodes DF1 a→l, DR1 0→l, DF2 r→0, DR2 r→a (w = v_k − v_p for anode p, cathode k). W is
// singular: the load's nodes l, r have no path to ground but through the diodes.
struct Bridges {
  int n, m;
  SparseMatrix w, b, c, d, c_off;
  Eigen::VectorXd r, dvec;
  Bridges(const std::vector<double>& v_a0, double i_l0) {
    const int copies = static_cast<int>(v_a0.size());
    n = 4 * copies;
    m = 4 * copies;
    const double h = 1e-6, cap = 1e-6, ind = 10e-3, g = 1e-3;
    Triplets tw, tb, tc;
    r = Eigen::VectorXd::Zero(n);
    for (int k = 0; k < copies; ++k) {
      const int a = 4 * k, l = a + 1, rr = a + 2, il = a + 3;
      tw.emplace_back(a, a, cap / h);
      tw.emplace_back(a, il, 1.0);  // i_L leaves a
      tw.emplace_back(il, a, 1.0);  // v_a − (L/h) i_L = −(L/h) i_L0
      tw.emplace_back(il, il, -ind / h);
      for (auto [p, q] : {std::pair{l, l}, std::pair{rr, rr}}) tw.emplace_back(p, q, g);
      tw.emplace_back(l, rr, -g);
      tw.emplace_back(rr, l, -g);
      r[a] = cap / h * v_a0[static_cast<size_t>(k)];
      r[il] = -ind / h * i_l0;
      // (anode, cathode) of DF1, DR1, DF2, DR2; −1 = ground.
      const int diodes[4][2] = {{a, l}, {-1, l}, {rr, -1}, {rr, a}};
      for (int j = 0; j < 4; ++j) {
        const int col = 4 * k + j, an = diodes[j][0], ca = diodes[j][1];
        if (an >= 0) {
          tb.emplace_back(an, col, -1.0);
          tc.emplace_back(col, an, -1.0);
        }
        if (ca >= 0) {
          tb.emplace_back(ca, col, 1.0);
          tc.emplace_back(col, ca, 1.0);
        }
      }
    }
    w = sparse(n, n, tw);
    b = sparse(n, m, tb);
    c = sparse(m, n, tc);
    d = SparseMatrix(m, m);
    c_off = SparseMatrix(m, n);
    dvec = Eigen::VectorXd::Zero(m);
  }
};

TEST(BlockPivoting, DiodeBridgesWithSingularWAgreeWithTheDenseTransform) {
  // Tank voltages of both signs; the guess "all diodes off" is singular (floating loads).
  const Bridges br({10.0, -7.0, 3.0, -0.5, 6.0, -9.0}, 0.0);
  KluSymbolic symbolic;
  ASSERT_EQ(symbolic.analyze(mode_matrix_pattern(br.w, br.b, br.c, br.d, br.c_off)), LuStatus::kOk);
  auto run = [&](int dense_max, std::vector<char>& mode, Eigen::VectorXd& x,
                 Eigen::VectorXd& lambda, ModeMlcpStats& stats) {
    ModeMlcp solver(br.w, br.b, br.c, br.d, br.c_off, std::vector<char>(br.m, 0), symbolic, 8);
    solver.set_dense_transform_max(dense_max);
    solver.set_block_flip(false);
    mode.assign(static_cast<size_t>(br.m), 0);
    Eigen::VectorXd w;
    const MlcpOutcome o = solver.solve(br.r, br.dvec, mode, x, lambda, w);
    stats = solver.stats();
    return o;
  };
  std::vector<char> mode_b, mode_d;
  Eigen::VectorXd x_b, x_d, l_b, l_d;
  ModeMlcpStats s_b, s_d;
  const MlcpOutcome ob = run(0, mode_b, x_b, l_b, s_b);
  const MlcpOutcome od = run(1 << 30, mode_d, x_d, l_d, s_d);
  ASSERT_EQ(ob.status, LcpStatus::kSolved) << ob.message;
  ASSERT_EQ(od.status, LcpStatus::kSolved) << od.message;
  EXPECT_GT(s_b.block_calls, 0);
  EXPECT_EQ(s_d.block_calls, 0);
  EXPECT_EQ(mode_b, mode_d);
  EXPECT_LE((x_b - x_d).lpNorm<Eigen::Infinity>(), 1e-9 * x_d.lpNorm<Eigen::Infinity>());
  EXPECT_LE((l_b - l_d).lpNorm<Eigen::Infinity>(), 1e-9 * l_d.lpNorm<Eigen::Infinity>());
  // Each bridge conducts through one diagonal pair: DF1, DF2 for v_a > 0, DR1, DR2 for v_a < 0.
  for (int k = 0; k < 6; ++k) {
    const bool positive = x_d[4 * k] > 0;
    EXPECT_EQ(mode_b[4 * k] + mode_b[4 * k + 2], positive ? 2 : 0) << "bridge " << k;
    EXPECT_EQ(mode_b[4 * k + 1] + mode_b[4 * k + 3], positive ? 0 : 2) << "bridge " << k;
  }
}

// The stored problems (dense M) through the sparse block path. Those whose M is not a P-matrix
// go to the transform of the pairs in doubt (dense on those only) and the auto policy there.
TEST(BlockPivoting, EveryStoredProblem) {
  int checked = 0;
  std::vector<std::string> names;
  for (const auto& [name, generated] : testing::stored_problems()) names.push_back(name);
  for (const std::string name : {"circuit_diode_bridge", "circuit_buck", "circuit_rlc_zener",
                                 "circuit_buck_closed_loop", "circuit_cmos_inverter_chain"})
    names.push_back(name);
  for (const auto& name : names) {
    SCOPED_TRACE(name);
    std::string error;
    const auto dump =
        read_lcp_dump(std::string(NSSPICE_TEST_DATA_DIR) + "/lcp/" + name + ".lcp", &error);
    ASSERT_TRUE(dump) << error;
    const SparseMatrix M = dump->M.sparseView();
    const SparseLcpResult r = solve_sparse_lcp(M, dump->q);
    ++checked;
    if (name == "ab08_circuit_c_infeasible") {
      EXPECT_EQ(r.lcp.status, LcpStatus::kInfeasible) << r.lcp.message;
      continue;
    }
    EXPECT_TRUE(solves_sparse(M, dump->q, r.lcp));
    if (name.starts_with("ladder") || name.starts_with("murty")) {  // P-matrices: one solution
      const LcpResult lemke = solve_lemke(dump->M, dump->q);
      EXPECT_LE((r.lcp.z - lemke.z).lpNorm<Eigen::Infinity>(), 1e-9 * (1 + lemke.z.norm()));
    }
  }
  EXPECT_EQ(checked, static_cast<int>(names.size()));
}

}  // namespace
}  // namespace nsspice::solvers
