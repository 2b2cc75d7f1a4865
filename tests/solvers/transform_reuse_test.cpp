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

using testing::expect_same_answer;
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
    expect_same_answer(xk, lk, xf, lf, k);
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

// ModeMlcp's private steps, for the test below.
class ModeMlcpProbe {
 public:
  explicit ModeMlcpProbe(ModeMlcp& s) : s_(s) {}
  const KluFactor* factor_for(const std::vector<char>& mode) { return s_.factor_for(mode); }
  const ModeMlcp::TransformBase& transform(const KluFactor& base, const std::vector<char>& mode) {
    return s_.transform_base(base, mode, own_);
  }
  bool solve_through(const ModeMlcp::TransformBase& t, const KluFactor& base,
                     const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                     const std::vector<char>& answer) {
    return s_.solve_through(t, base, r, d, answer);
  }
  void solve_mode(const KluFactor& f, const Eigen::VectorXd& r, const Eigen::VectorXd& d,
                  const std::vector<char>& mode) {
    s_.solve_mode(f, r, d, mode);
  }
  const Eigen::VectorXd& u() const { return s_.u_; }

 private:
  ModeMlcp& s_;
  ModeMlcp::TransformBase own_;
};

namespace {

// solve_through's u0 + U_F z_F, (M_σ)_F F z_F = −q_F, is the solution of the mode the flipped
// pairs F name: against that mode's own factor on the clamp ladder (its K is regular here, so
// both exist), for answers 1 to 6 pairs away from the all-off base.
TEST(ModeMlcpTransformReuse, TheSolutionThroughTheTransformIsTheModeSystems) {
  const Ladder lad(30, 1e-7);
  KluSymbolic symbolic;
  ASSERT_EQ(symbolic.analyze(mode_matrix_pattern(lad.w, lad.b, lad.c, lad.d, lad.c_off)),
            LuStatus::kOk);
  ModeMlcp solver(lad.w, lad.b, lad.c, lad.d, lad.c_off, lad.forced, symbolic, 8);
  ModeMlcpProbe probe(solver);
  const std::vector<char> base(static_cast<size_t>(lad.n + 1), 0);
  const KluFactor* base_factor = probe.factor_for(base);
  ASSERT_NE(base_factor, nullptr);
  const auto& t = probe.transform(*base_factor, base);
  const Eigen::VectorXd r = drive(lad, 2.5, 6.0);
  for (int on = 1; on <= 6; ++on) {
    std::vector<char> answer = base;
    for (int j = 0; j < on; ++j) answer[static_cast<size_t>(j)] = 1;
    ASSERT_TRUE(probe.solve_through(t, *base_factor, r, lad.dvec, answer)) << on;
    const Eigen::VectorXd through = probe.u();
    const KluFactor* own = probe.factor_for(answer);
    ASSERT_NE(own, nullptr);
    probe.solve_mode(*own, r, lad.dvec, answer);
    const Eigen::VectorXd exact = probe.u();
    EXPECT_LE((through - exact).lpNorm<Eigen::Infinity>(), 1e-10 * exact.lpNorm<Eigen::Infinity>())
        << on;
  }
  EXPECT_FALSE(probe.solve_through(t, *base_factor, r, lad.dvec, base));  // no pair flipped
}

// Two ideal diodes in series, a → b → ground, a driven through 1 mS: x = (v_a, v_b); pair 1:
// a → b, w = v_b − v_a; pair 2: b → ground, w = −v_b. With both blocking, node b floats.
struct DiodePair {
  using Triplets = std::vector<Eigen::Triplet<double, int>>;
  SparseMatrix w = testing::sparse(2, 2, Triplets{{0, 0, 1e-3}});
  SparseMatrix b = testing::sparse(2, 2, Triplets{{0, 0, -1.0}, {1, 0, 1.0}, {1, 1, -1.0}});
  SparseMatrix c = testing::sparse(2, 2, Triplets{{0, 0, -1.0}, {0, 1, 1.0}, {1, 1, -1.0}});
  SparseMatrix zero = testing::sparse(2, 2, Triplets{});
  KluSymbolic symbolic;
  DiodePair() { symbolic.analyze(mode_matrix_pattern(w, b, c, zero, zero)); }
  ModeMlcp solver() const {
    return ModeMlcp(w, b, c, zero, zero, std::vector<char>(2, 0), symbolic, 8);
  }
};

// Two ideal diodes in series, a → b → ground: with both blocking, node b has no equation; the
// basis that would name that mode from the base "D1 on, D2 off" is singular too ((M_σ)_FF = 0:
// D1's current cannot move while D2 blocks), and solve_through refuses it.
TEST(ModeMlcpTransformReuse, ASingularBasisIsRefused) {
  const DiodePair pair;
  ASSERT_TRUE(pair.symbolic.analyzed());
  ModeMlcp solver = pair.solver();
  ModeMlcpProbe probe(solver);
  const std::vector<char> base = {1, 0}, floating = {0, 0};
  const KluFactor* base_factor = probe.factor_for(base);
  ASSERT_NE(base_factor, nullptr);
  EXPECT_EQ(probe.factor_for(floating), nullptr);
  const auto& t = probe.transform(*base_factor, base);
  EXPECT_FALSE(probe.solve_through(t, *base_factor, Eigen::Vector2d(-2e-3, 0.0),
                                   Eigen::Vector2d::Zero(), floating));
}

// A singular guess is replaced by the last nonsingular base first (find_base), which seed_base
// sets for a new step size's solver from another's: on the diode pair above, whose both-off mode
// is singular, a fresh solver finds the base "D1 on" (a single flip) and answers with it; one
// seeded with "D2 on" answers with that (the LCP's solutions here are a segment: both are), and
// each records the base it used.
TEST(ModeMlcpTransformReuse, ASeededBaseIsTheFirstCandidateForASingularGuess) {
  const DiodePair pair;
  ASSERT_TRUE(pair.symbolic.analyzed());
  const Eigen::Vector2d r(-2e-3, 0.0);
  for (const bool seeded : {false, true}) {
    ModeMlcp solver = pair.solver();
    if (seeded) solver.seed_base({0, 1});
    std::vector<char> mode = {0, 0};  // singular: node b floats
    Eigen::VectorXd x, lambda, wv;
    ASSERT_EQ(solver.solve(r, Eigen::Vector2d::Zero(), mode, x, lambda, wv).status,
              LcpStatus::kSolved);
    const std::vector<char> expect = seeded ? std::vector<char>{0, 1} : std::vector<char>{1, 0};
    EXPECT_EQ(mode, expect) << seeded;
    EXPECT_EQ(solver.base_mode(), expect) << seeded;
    EXPECT_NEAR(x[0], -2.0, 1e-12) << seeded;                 // v_a = r_a / g
    EXPECT_NEAR(x[1], seeded ? 0.0 : -2.0, 1e-12) << seeded;  // b at one end of its segment
    EXPECT_EQ(solver.stats().lemke_calls, 0) << seeded;
  }
}

}  // namespace
}  // namespace nsspice::solvers
