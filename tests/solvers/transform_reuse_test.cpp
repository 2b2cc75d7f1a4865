// ModeMlcp's kept transforms (TransformBase, mode_mlcp.hpp): a pivoting step from a base mode met
// before reuses the columns K(σ)⁻¹ e_{n+j} and M_σ of that base, and first tries the mode its last
// pivoting reached. Against a solver that builds every transform anew and always pivots, on a
// diode-clamped RC ladder (its end switch open) driven past its clamps from the all-off guess.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "clamp_ladder.hpp"
#include "lcp_problems.hpp"
#include "solvers/lcp/mode_mlcp.hpp"

namespace nsspice::solvers {
namespace {

using testing::Ladder;

// The right-hand side that puts node i of `lad` at peak·e^{−i/τ} with every clamp off.
Eigen::VectorXd drive(const Ladder& lad, double peak, double tau) {
  Eigen::VectorXd target(lad.n);
  for (int i = 0; i < lad.n; ++i) target[i] = peak * std::exp(-i / tau);
  return lad.w * target;
}

TEST(ModeMlcpTransformReuse, KeptTransformsAndAnswersGiveThePivotingAnswers) {
  const Ladder lad(30, 1e-7);
  const SparseMatrix pattern = mode_matrix_pattern(lad.w, lad.b, lad.c, lad.d, lad.c_off);
  KluSymbolic symbolic;
  ASSERT_EQ(symbolic.analyze(pattern), LuStatus::kOk);
  const std::vector<char> none(static_cast<size_t>(lad.n + 1), 0);  // the switch open too
  ModeMlcp kept(lad.w, lad.b, lad.c, lad.d, lad.c_off, lad.forced, symbolic, 8);
  ModeMlcp fresh(lad.w, lad.b, lad.c, lad.d, lad.c_off, lad.forced, symbolic, 8);
  for (ModeMlcp* s : {&kept, &fresh}) s->set_block_flip(false);  // a failed guess pivots
  fresh.set_transform_cache(false);
  // From the all-off guess each time: the same clamped set twice (the second answered by the
  // first's mode), a wider one (the kept answer fails its check: pivoting on the kept
  // transform), the first set again (the kept answer is now the wider set's: pivoting again).
  const struct { double peak, tau; } drives[] = {{2.0, 8.0}, {2.05, 8.0}, {4.0, 12.0}, {2.0, 8.0}};
  const long expect_lemke[] = {1, 1, 2, 3};
  const long expect_reuses[] = {0, 1, 1, 1};
  const long expect_hits[] = {0, 0, 1, 2};
  for (int k = 0; k < 4; ++k) {
    const Eigen::VectorXd r = drive(lad, drives[k].peak, drives[k].tau);
    std::vector<char> mode_kept = none, mode_fresh = none;
    Eigen::VectorXd xk, lk, wk, xf, lf, wf;
    const MlcpOutcome ok_kept = kept.solve(r, lad.dvec, mode_kept, xk, lk, wk);
    const MlcpOutcome ok_fresh = fresh.solve(r, lad.dvec, mode_fresh, xf, lf, wf);
    ASSERT_EQ(ok_kept.status, LcpStatus::kSolved) << k;
    ASSERT_EQ(ok_fresh.status, LcpStatus::kSolved) << k;
    EXPECT_EQ(mode_kept, mode_fresh) << k;
    int clamped = 0;
    for (char on : mode_kept) clamped += on;
    EXPECT_GE(clamped, 3) << k;  // the drive does push several nodes past the rail
    EXPECT_LE((xk - xf).lpNorm<Eigen::Infinity>(), 1e-12 * (1 + xf.lpNorm<Eigen::Infinity>())) << k;
    EXPECT_LE((lk - lf).lpNorm<Eigen::Infinity>(), 1e-12 * (1 + lf.lpNorm<Eigen::Infinity>())) << k;
    EXPECT_EQ(kept.stats().lemke_calls, expect_lemke[k]) << k;
    EXPECT_EQ(kept.stats().answer_reuses, expect_reuses[k]) << k;
    EXPECT_EQ(kept.stats().transform_hits, expect_hits[k]) << k;
    EXPECT_EQ(fresh.stats().lemke_calls, k + 1) << k;
    EXPECT_EQ(fresh.stats().answer_reuses, 0) << k;
    EXPECT_EQ(fresh.stats().transform_hits, 0) << k;
  }
  // A new step size's W (retarget) drops what was kept: the next pivoting builds anew.
  kept.retarget(Ladder(30, 2e-7).w);
  std::vector<char> mode = none;
  Eigen::VectorXd x, l, w;
  ASSERT_EQ(kept.solve(drive(lad, 2.0, 8.0), lad.dvec, mode, x, l, w).status, LcpStatus::kSolved);
  EXPECT_EQ(kept.stats().lemke_calls, 4);
  EXPECT_EQ(kept.stats().answer_reuses, 1);
  EXPECT_EQ(kept.stats().transform_hits, 2);
}

}  // namespace
}  // namespace nsspice::solvers
