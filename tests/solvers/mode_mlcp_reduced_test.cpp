// ModeMlcp's reduced solves (through W's factor and the Schur complement of the active pairs)
// against its K(σ) solves, on a diode-clamped RC ladder with an ideal switch at its end.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "clamp_ladder.hpp"
#include "lcp_problems.hpp"
#include "solvers/lcp/mode_mlcp.hpp"

namespace nsspice::solvers {
namespace {

using testing::expect_same_answer;
using testing::Ladder;

TEST(ModeMlcpReduced, AgreesWithTheModeSystemOfKSigma) {
  const Ladder lad(60, 1e-7);
  const SparseMatrix pattern = mode_matrix_pattern(lad.w, lad.b, lad.c, lad.d, lad.c_off);
  KluSymbolic k_symbolic, w_symbolic;
  ASSERT_EQ(k_symbolic.analyze(pattern), LuStatus::kOk);
  ASSERT_EQ(w_symbolic.analyze(lad.w), LuStatus::kOk);
  ModeMlcp full(lad.w, lad.b, lad.c, lad.d, lad.c_off, lad.forced, k_symbolic, 8);
  ModeMlcp reduced(lad.w, lad.b, lad.c, lad.d, lad.c_off, lad.forced, k_symbolic, 8);
  reduced.enable_reduced(w_symbolic, 16);
  const int m = lad.n + 1;
  std::vector<char> mode_full(static_cast<size_t>(m), 0), mode_red = mode_full;
  // Drives whose solutions clamp a few nodes (the reduced path) and many nodes (more active
  // pairs than the limit: the K(σ) path), with the switch on and off.
  int changes = 0;
  for (int k = 0; k < 24; ++k) {
    const bool switch_on = (k / 6) % 2 == 1;
    mode_full[static_cast<size_t>(lad.n)] = mode_red[static_cast<size_t>(lad.n)] = switch_on;
    const double peak = k < 12 ? 0.5 + 0.15 * k : 4.0 - 0.3 * (k - 12);
    Eigen::VectorXd target(lad.n);
    for (int i = 0; i < lad.n; ++i) target[i] = peak * std::exp(-0.05 * i * (1 + k % 3));
    const Eigen::VectorXd r = lad.w * target;
    Eigen::VectorXd xf, lf, wf, xr, lr, wr;
    const MlcpOutcome of = full.solve(r, lad.dvec, mode_full, xf, lf, wf);
    const MlcpOutcome orr = reduced.solve(r, lad.dvec, mode_red, xr, lr, wr);
    ASSERT_EQ(of.status, LcpStatus::kSolved) << k;
    ASSERT_EQ(orr.status, LcpStatus::kSolved) << k;
    ASSERT_EQ(mode_full, mode_red) << k;
    changes += of.mode_changed;
    expect_same_answer(xr, lr, xf, lf, k);
    EXPECT_LE((wf - wr).lpNorm<Eigen::Infinity>(), 1e-12 * (1.0 + xf.lpNorm<Eigen::Infinity>()))
        << k;
  }
  EXPECT_GT(changes, 4);
  EXPECT_EQ(full.stats().reduced_solves, 0);
  EXPECT_GT(reduced.stats().reduced_solves, 0);
  EXPECT_LT(reduced.stats().reduced_solves, reduced.stats().mode_solves);  // both paths met
}

// A solver retargeted to another step size (ModeMlcp::retarget: the θ-stepper's odd step sizes)
// answers exactly as a new solver for that W: nothing made from the old W (factors of K(σ) and
// of W, columns W⁻¹ B_j, Schur factors, the last base mode) survives. Both go through the same
// drives, each solved on the reduced path (few clamped nodes) and on K(σ)'s (many), with the
// switch on and off: the same modes, and x, λ, w equal to the last bit.
TEST(ModeMlcpReduced, RetargetAnswersAsANewSolver) {
  const Ladder before(40, 3e-7), after(40, 1.7e-8);
  const SparseMatrix pattern = mode_matrix_pattern(after.w, after.b, after.c, after.d, after.c_off);
  KluSymbolic k_symbolic, w_symbolic;
  ASSERT_EQ(k_symbolic.analyze(pattern), LuStatus::kOk);
  ASSERT_EQ(w_symbolic.analyze(after.w), LuStatus::kOk);
  FactorBudget budget_a, budget_b;
  ModeMlcp reused(before.w, before.b, before.c, before.d, before.c_off, before.forced, k_symbolic,
                  8, &budget_a);
  ModeMlcp fresh(after.w, after.b, after.c, after.d, after.c_off, after.forced, k_symbolic, 8,
                 &budget_b);
  reused.enable_reduced(w_symbolic, 16);
  fresh.enable_reduced(w_symbolic, 16);
  const int m = after.n + 1;
  auto drive = [&](const Ladder& lad, int k, std::vector<char>& mode, ModeMlcp& solver,
                   Eigen::VectorXd& x, Eigen::VectorXd& l, Eigen::VectorXd& w) {
    mode[static_cast<size_t>(lad.n)] = (k / 4) % 2 == 1;
    const double peak = k < 8 ? 0.6 + 0.3 * k : 3.0 - 0.25 * (k - 8);
    Eigen::VectorXd target(lad.n);
    for (int i = 0; i < lad.n; ++i) target[i] = peak * std::exp(-0.04 * i * (1 + k % 3));
    return solver.solve(lad.w * target, lad.dvec, mode, x, l, w);
  };
  std::vector<char> mode(static_cast<size_t>(m), 0);
  Eigen::VectorXd x, l, w;
  for (int k = 0; k < 16; ++k)  // fill the first solver's caches with the old W's
    ASSERT_EQ(drive(before, k, mode, reused, x, l, w).status, LcpStatus::kSolved) << k;
  reused.retarget(after.w);
  std::vector<char> mode_r(static_cast<size_t>(m), 0), mode_f = mode_r;
  int reduced_before = static_cast<int>(reused.stats().reduced_solves);
  for (int k = 0; k < 16; ++k) {
    Eigen::VectorXd xr, lr, wr, xf, lf, wf;
    const MlcpOutcome a = drive(after, k, mode_r, reused, xr, lr, wr);
    const MlcpOutcome b = drive(after, k, mode_f, fresh, xf, lf, wf);
    ASSERT_EQ(a.status, b.status) << k;
    ASSERT_EQ(mode_r, mode_f) << k;
    EXPECT_EQ(xr, xf) << k;
    EXPECT_EQ(lr, lf) << k;
    EXPECT_EQ(wr, wf) << k;
  }
  // Both paths were met after the retarget, and the statistics went on counting.
  EXPECT_GT(reused.stats().reduced_solves, reduced_before);
  EXPECT_GT(fresh.stats().reduced_solves, 0);
  EXPECT_LT(fresh.stats().reduced_solves, fresh.stats().mode_solves);
  EXPECT_EQ(reused.stats().solves, 32);
}

TEST(ModeMlcpReduced, SingularWFallsBackToKSigma) {
  // A node without a conductance of its own (W singular): every solve goes through K(σ).
  Ladder lad(5, 1e-7);
  lad.w.coeffRef(4, 4) = 0.0;
  lad.w.coeffRef(4, 3) = 0.0;
  lad.w.coeffRef(3, 4) = 0.0;
  const SparseMatrix pattern = mode_matrix_pattern(lad.w, lad.b, lad.c, lad.d, lad.c_off);
  KluSymbolic k_symbolic, w_symbolic;
  ASSERT_EQ(k_symbolic.analyze(pattern), LuStatus::kOk);
  ASSERT_EQ(w_symbolic.analyze(lad.w), LuStatus::kOk);
  ModeMlcp reduced(lad.w, lad.b, lad.c, lad.d, lad.c_off, lad.forced, k_symbolic, 8);
  reduced.enable_reduced(w_symbolic, 16);
  std::vector<char> mode(6, 0);
  mode[5] = 1;  // the switch holds node 4
  Eigen::VectorXd x, l, w;
  const Eigen::VectorXd r = Eigen::VectorXd::Constant(5, 1e-3);
  const MlcpOutcome o = reduced.solve(r, lad.dvec, mode, x, l, w);
  EXPECT_EQ(o.status, LcpStatus::kSolved);
  EXPECT_EQ(reduced.stats().reduced_solves, 0);
}

}  // namespace
}  // namespace nsspice::solvers
