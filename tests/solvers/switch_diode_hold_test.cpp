// Diodes across closed ideal switches are held off (ModeStructure::shadow, ModeMlcp::hold_pairs):
// which pairs qualify, that the held solve is a solution of the unreduced MLCP, and that a
// half-bridge arm (the MMC's submodules) solves from a guess with every diode on — a singular
// mode, since a diode across a closed switch repeats the switch's row — without pivoting on the
// degenerate pairs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "lcp_problems.hpp"
#include "solvers/lcp/mode_mlcp.hpp"

namespace nsspice::solvers {
namespace {

using Triplets = std::vector<Eigen::Triplet<double, int>>;
using testing::sparse;

// One MLCP: W x − B λ = r, w = C x + D λ + d, forced pairs (switches) with off rows C_off.
struct Problem {
  int n = 0, m = 0;
  SparseMatrix w, b, c, d, c_off;
  Eigen::VectorXd r, dvec;
  std::vector<char> forced;
};

// The unreduced MLCP's residual at (x, λ) for `mode`'s switch states: KCL, each switch's row
// (on: C_s x + D_s λ + d_s = 0, off: C_off_s x + λ_s = 0) and each free pair's
// complementarity (min(λ_j, w_j), λ_j ≥ 0, w_j ≥ 0), relative to the scale of the terms.
double mlcp_residual(const Problem& p, const std::vector<char>& mode, const Eigen::VectorXd& x,
                     const Eigen::VectorXd& lambda) {
  const Eigen::VectorXd kcl = p.w * x - p.b * lambda - p.r;
  const Eigen::VectorXd w = p.c * x + p.d * lambda + p.dvec;
  const Eigen::VectorXd off = p.c_off * x + lambda;
  const double scale = 1.0 + x.lpNorm<Eigen::Infinity>() + lambda.lpNorm<Eigen::Infinity>() +
                       p.r.lpNorm<Eigen::Infinity>();
  double res = kcl.lpNorm<Eigen::Infinity>();
  for (int j = 0; j < p.m; ++j) {
    if (p.forced[static_cast<size_t>(j)]) {
      res = std::max(res, std::abs(mode[static_cast<size_t>(j)] ? w[j] : off[j]));
    } else {
      res = std::max({res, std::abs(std::min(lambda[j], w[j])), -lambda[j], -w[j]});
    }
  }
  return res / scale;
}

// Node 0 fed by the current source I with G = 1 mS and C/h = 1 mS to ground. Pair 0: an ideal
// switch from node 0 to ground (on row v0 − RON λ0 = 0, open: λ0 = 0). Pair 1: a diode from
// ground to node 0 (w1 = v0 + RON_D λ1 + VF, current into node 0), or, with `coupled`, one whose
// row also holds another pair's λ (LTspice's current limit).
Problem switch_and_diode(double i_source, double switch_ron, double diode_ron, double vf,
                         bool coupled = false) {
  Problem p;
  p.n = 1;
  p.m = coupled ? 3 : 2;
  p.w = sparse(1, 1, {{0, 0, 2e-3}});
  p.b = sparse(1, p.m, {{0, 0, -1.0}, {0, 1, 1.0}});
  Triplets tc = {{0, 0, 1.0}, {1, 0, 1.0}};
  Triplets td = {{0, 0, -switch_ron}, {1, 1, diode_ron}};
  if (coupled) {
    td.emplace_back(1, 2, 1.0);
    td.emplace_back(2, 1, -1.0);
  }
  p.c = sparse(p.m, 1, tc);
  p.d = sparse(p.m, p.m, td);
  p.c_off = sparse(p.m, 1, {});
  p.r = Eigen::VectorXd::Constant(1, i_source);
  p.dvec = Eigen::VectorXd::Zero(p.m);
  p.dvec[1] = vf;
  if (coupled) p.dvec[2] = 1.0;
  p.forced.assign(static_cast<size_t>(p.m), 0);
  p.forced[0] = 1;
  return p;
}

ModeStructure structure_of(const Problem& p) {
  return ModeStructure(p.w, p.b, p.c, p.d, p.c_off, p.forced);
}

TEST(SwitchDiodeHold, OnlyADiodeWhoseRowTheIdealSwitchFixesIsShadowed) {
  EXPECT_EQ(structure_of(switch_and_diode(1e-3, 0.0, 0.0, 0.0)).shadow[1], 0);
  EXPECT_EQ(structure_of(switch_and_diode(1e-3, 0.0, 0.5, 0.7)).shadow[1], 0);  // RON, VF ≥ 0
  // A switch with RON > 0 lets a forward-biased diode take the current: not degenerate.
  EXPECT_EQ(structure_of(switch_and_diode(1e-3, 0.1, 0.0, 0.0)).shadow[1], -1);
  // A diode whose row holds another pair's λ (a current limit): its w is not the switch's row.
  EXPECT_EQ(structure_of(switch_and_diode(1e-3, 0.0, 0.0, 0.0, true)).shadow[1], -1);
  // A diode elsewhere: C and B not proportional to the switch's.
  Problem p = switch_and_diode(1e-3, 0.0, 0.0, 0.0);
  p.n = 2;
  p.w = sparse(2, 2, {{0, 0, 2e-3}, {1, 1, 2e-3}});
  p.b = sparse(2, 2, {{0, 0, -1.0}, {1, 1, 1.0}});
  p.c = sparse(2, 2, {{0, 0, 1.0}, {1, 1, 1.0}});
  p.c_off = sparse(2, 2, {});
  EXPECT_EQ(structure_of(p).shadow[1], -1);
  EXPECT_FALSE(structure_of(p).any_shadow);
}

// The source pulls node 0 down (I = −1 mA): with the switch open the diode conducts 1 mA; with
// it closed v0 = 0 and any split λ_s − λ_d = −1 mA solves the MLCP (λ_d = w_d = 0: degenerate).
// Held, the diode is off and the switch carries −1 mA, from a guess with both on (singular).
TEST(SwitchDiodeHold, AClosedSwitchCarriesTheCurrentAndTheHeldSolutionSolvesTheMlcp) {
  const Problem p = switch_and_diode(-1e-3, 0.0, 0.0, 0.0);
  const SparseMatrix pattern = mode_matrix_pattern(p.w, p.b, p.c, p.d, p.c_off);
  KluSymbolic symbolic;
  ASSERT_EQ(symbolic.analyze(pattern), LuStatus::kOk);
  ModeMlcp solver(p.w, p.b, p.c, p.d, p.c_off, p.forced, symbolic, 8);
  Eigen::VectorXd x, lambda, w;
  std::vector<char> open = {0, 0};
  ASSERT_TRUE(ok(solver.solve(p.r, p.dvec, open, x, lambda, w)));
  EXPECT_EQ(open[1], 1);
  EXPECT_NEAR(lambda[1], 1e-3, 1e-15);
  EXPECT_NEAR(x[0], 0.0, 1e-15);
  EXPECT_EQ(solver.stats().held_solves, 0);
  std::vector<char> closed = {1, 1};  // the diode still on from before: K(σ) singular
  const MlcpOutcome o = solver.solve(p.r, p.dvec, closed, x, lambda, w);
  ASSERT_TRUE(ok(o)) << o.message;
  EXPECT_EQ(closed[1], 0);
  EXPECT_EQ(lambda[1], 0.0);
  EXPECT_NEAR(lambda[0], -1e-3, 1e-15);
  EXPECT_NEAR(x[0], 0.0, 1e-15);
  EXPECT_LE(mlcp_residual(p, closed, x, lambda), 1e-14);
  EXPECT_EQ(solver.stats().held_solves, 1);
  EXPECT_EQ(solver.stats().lemke_calls, 0);
  // The event location's solve in a given mode holds it as well.
  std::vector<char> given = {1, 1};
  ASSERT_TRUE(solver.solve_in_mode(p.r, p.dvec, given, x, lambda, w));
  EXPECT_EQ(lambda[1], 0.0);
  EXPECT_NEAR(lambda[0], -1e-3, 1e-15);
}

// M half-bridge submodules in series carrying the arm current I from node x_0 to ground
// (x_M). Submodule k: midpoint x_k, capacitor C from c_k to x_{k+1} (its previous voltage in r
// through C/h), upper switch x_k–c_k with diode D1 x_k → c_k, lower switch x_k–x_{k+1} with
// diode D2 x_{k+1} → x_k, and 1 TΩ from every node to ground (its leakage: below 1e-7 A). Pairs
// 4k..4k+3: S1, D1, S2, D2. Submodule k is inserted (S1 closed) when k is odd, bypassed (S2 closed)
// otherwise.
Problem arm(int m_sub, double i_arm) {
  Problem p;
  p.n = 2 * m_sub;
  p.m = 4 * m_sub;
  const double g = 1e-12, ch = 1e-3 / 1e-5, v_cap = 2.0;
  auto x_node = [&](int k) { return k < m_sub ? k : -1; };  // x_M = ground
  auto c_node = [&](int k) { return m_sub + k; };
  Triplets tw, tb, tc;
  p.r = Eigen::VectorXd::Zero(p.n);
  p.r[0] = i_arm;
  auto stamp = [&](int a, int b_, double v) {
    if (a >= 0) tw.emplace_back(a, a, v);
    if (b_ >= 0) tw.emplace_back(b_, b_, v);
    if (a >= 0 && b_ >= 0) {
      tw.emplace_back(a, b_, -v);
      tw.emplace_back(b_, a, -v);
    }
  };
  // A pair with current from `from` to `to` and w = v_to − v_from (diode) or v_from − v_to
  // (switch on row).
  auto pair = [&](int j, int from, int to, double sign) {
    if (from >= 0) {
      tb.emplace_back(from, j, -1.0);
      tc.emplace_back(j, from, -sign);
    }
    if (to >= 0) {
      tb.emplace_back(to, j, 1.0);
      tc.emplace_back(j, to, sign);
    }
  };
  for (int k = 0; k < m_sub; ++k) {
    stamp(x_node(k), -1, g);
    stamp(c_node(k), -1, g);
    stamp(c_node(k), x_node(k + 1), ch);
    p.r[c_node(k)] += ch * v_cap;
    if (x_node(k + 1) >= 0) p.r[x_node(k + 1)] -= ch * v_cap;
    pair(4 * k, x_node(k), c_node(k), -1.0);          // S1
    pair(4 * k + 1, x_node(k), c_node(k), 1.0);       // D1
    pair(4 * k + 2, x_node(k), x_node(k + 1), -1.0);  // S2
    pair(4 * k + 3, x_node(k + 1), x_node(k), 1.0);   // D2
  }
  p.w = sparse(p.n, p.n, tw);
  p.b = sparse(p.n, p.m, tb);
  p.c = sparse(p.m, p.n, tc);
  Triplets td;
  for (int j = 0; j < p.m; j += 2) td.emplace_back(j, j, -0.0);  // ideal switches: RON = 0
  p.d = sparse(p.m, p.m, td);
  p.c_off = sparse(p.m, p.n, {});
  p.dvec = Eigen::VectorXd::Zero(p.m);
  p.forced.assign(static_cast<size_t>(p.m), 0);
  for (int k = 0; k < m_sub; ++k) p.forced[static_cast<size_t>(4 * k)] = 1;
  for (int k = 0; k < m_sub; ++k) p.forced[static_cast<size_t>(4 * k + 2)] = 1;
  return p;
}

std::vector<char> arm_guess(int m_sub) {
  std::vector<char> mode(static_cast<size_t>(4 * m_sub), 1);  // every diode on
  for (int k = 0; k < m_sub; ++k) {
    mode[static_cast<size_t>(4 * k)] = k % 2 == 1;
    mode[static_cast<size_t>(4 * k + 2)] = k % 2 == 0;
  }
  return mode;
}

// Both current directions, a short arm and one long enough (400 free pairs) that a failed check
// would pivot by blocks if the held diodes counted (200 live pairs: the dense side).
TEST(SwitchDiodeHold, HalfBridgeArmsSolveFromEveryDiodeOnWithTheSwitchesCarryingTheArmCurrent) {
  for (const int m_sub : {20, 200}) {
    for (const double i_arm : {5.0, -5.0}) {
      const Problem p = arm(m_sub, i_arm);
      const SparseMatrix pattern = mode_matrix_pattern(p.w, p.b, p.c, p.d, p.c_off);
      KluSymbolic symbolic;
      ASSERT_EQ(symbolic.analyze(pattern), LuStatus::kOk);
      ModeMlcp solver(p.w, p.b, p.c, p.d, p.c_off, p.forced, symbolic, 8);
      std::vector<char> mode = arm_guess(m_sub);
      Eigen::VectorXd x, lambda, w;
      const MlcpOutcome o = solver.solve(p.r, p.dvec, mode, x, lambda, w);
      ASSERT_TRUE(ok(o)) << m_sub << " " << i_arm << ": " << o.message;
      EXPECT_LE(mlcp_residual(p, mode, x, lambda), 1e-12) << m_sub << " " << i_arm;
      EXPECT_EQ(solver.stats().max_held, m_sub);  // one diode per submodule across its switch
      EXPECT_EQ(solver.stats().block_calls, 0);
      for (int k = 0; k < m_sub; ++k) {
        const auto kk = static_cast<size_t>(4 * k);
        const bool inserted = k % 2 == 1;
        // The closed switch carries the arm current; the other diode blocks (the bypass's D2
        // when I > 0, the inserted submodule's D1 when I < 0: the switch conducts backwards).
        EXPECT_NEAR(lambda[inserted ? 4 * k : 4 * k + 2], i_arm, 1e-6) << k;
        EXPECT_EQ(lambda[4 * k + 1], 0.0) << k;
        EXPECT_EQ(lambda[4 * k + 3], 0.0) << k;
        EXPECT_EQ(mode[kk + 1] + mode[kk + 3], 0) << k;
      }
    }
  }
}

}  // namespace
}  // namespace nsspice::solvers
