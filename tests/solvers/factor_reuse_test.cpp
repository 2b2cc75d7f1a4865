// Factor reuse (klu_copy.hpp, KluFactor::copy_from / refactor_like, FactorCache's model):
// copies are independent, a refactored copy of a model solves the new matrix as a fresh
// factorization does (to 1e-10 relative), a model whose pivots do not suit the new values falls
// back to a fresh factorization, and the cache answers misses of diode-clamp mode matrices from a
// model factored with the pairs conducting (the pivot order that serves every mode).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>
#include <string>
#include <vector>

#include "solvers/linear/factor_cache.hpp"
#include "solvers/linear/klu_lu.hpp"

namespace nsspice::solvers {
namespace {

using Triplets = std::vector<Eigen::Triplet<double, int>>;

SparseMatrix compressed(int n, const Triplets& t) {
  SparseMatrix a(n, n);
  a.setFromTriplets(t.begin(), t.end());
  a.makeCompressed();
  return a;
}

// The mode matrix K(σ) of a chain of `sections` RC sections fed through 1 kΩ from a source node
// (voltage source branch current as unknown), each node clamped to ground by an ideal diode
// (bench/clamp_network.py, one backward-Euler step of h): unknowns v_0 (source node), v_1..v_N,
// i_V, then λ_1..λ_N. Pair rows: −v_k = 0 when conducting, λ_k = 0 when blocking; every entry of
// both modes is in the pattern.
SparseMatrix clamp_mode_matrix(int sections, const std::vector<char>& on) {
  const int nx = sections + 2, n = nx + sections;
  const double grf = 1e-3, grc = 1e-2, h = 1e-6;
  Triplets t;
  for (int k = 1; k <= sections; ++k) {
    const double c = 10e-9 * (1 + 2 * (k % 7) / 7.0);
    t.emplace_back(k, k, grf + c / h);
    t.emplace_back(0, 0, grf);
    t.emplace_back(0, k, -grf);
    t.emplace_back(k, 0, -grf);
    if (k < sections) {
      t.emplace_back(k, k, grc);
      t.emplace_back(k + 1, k + 1, grc);
      t.emplace_back(k, k + 1, -grc);
      t.emplace_back(k + 1, k, -grc);
    }
  }
  t.emplace_back(0, sections + 1, 1.0);
  t.emplace_back(sections + 1, 0, 1.0);
  for (int j = 0; j < sections; ++j) {
    const int node = j + 1, row = nx + j;
    t.emplace_back(node, row, 1.0);
    t.emplace_back(row, node, on[j] ? -1.0 : 0.0);
    t.emplace_back(row, row, on[j] ? 0.0 : 1.0);
  }
  return compressed(n, t);
}

Eigen::VectorXd solve_with(const KluFactor& f, const Eigen::VectorXd& b) {
  Eigen::VectorXd x = b;
  f.solve(x);
  return x;
}

double rel_diff(const Eigen::VectorXd& x, const Eigen::VectorXd& ref) {
  return (x - ref).lpNorm<Eigen::Infinity>() / std::max(1.0, ref.lpNorm<Eigen::Infinity>());
}

Eigen::VectorXd rhs(int n, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> nd;
  Eigen::VectorXd b(n);
  for (auto& v : b) v = nd(gen);
  return b;
}

TEST(FactorReuse, CopyIsIndependentOfItsOriginal) {
  const int sections = 400;
  const SparseMatrix a = clamp_mode_matrix(sections, std::vector<char>(sections, 1));
  KluSymbolic sym;
  ASSERT_EQ(sym.analyze(a), LuStatus::kOk);
  const Eigen::VectorXd b = rhs(static_cast<int>(a.rows()), 1);
  const Eigen::VectorXd ref = Eigen::MatrixXd(a).partialPivLu().solve(b);
  KluFactor copy;
  {
    KluFactor original;
    ASSERT_EQ(original.factor(sym, a), LuStatus::kOk);
    ASSERT_TRUE(copy.copy_from(original));
    EXPECT_EQ(copy.rcond(), original.rcond());
    // The same bytes (the budget's accounting does not depend on which of the two an entry is).
    EXPECT_EQ(copy.bytes(), original.bytes());
    EXPECT_TRUE(copy.same_structure(original));
    EXPECT_GT(copy.bytes(), 0);
  }  // the original is gone: the copy owns its arrays
  EXPECT_LE(rel_diff(solve_with(copy, b), ref), 1e-10);
  KluFactor empty;
  EXPECT_FALSE(copy.copy_from(empty));
  EXPECT_FALSE(copy.valid());
}

TEST(FactorReuse, RefactoredCopyOfAModelSolvesOtherModes) {
  // A model factored with every pair conducting serves every mode (docs/solvers.md §8): the
  // refactored copy solves each as a fresh factorization, without one.
  const int sections = 400;
  std::vector<char> all_on(sections, 1), all_off(sections, 0), mixed(sections, 0);
  for (int j = 0; j < sections; j += 3) mixed[j] = 1;
  const SparseMatrix model_matrix = clamp_mode_matrix(sections, all_on);
  KluSymbolic sym;
  ASSERT_EQ(sym.analyze(model_matrix), LuStatus::kOk);
  KluFactor model;
  ASSERT_EQ(model.factor(sym, model_matrix), LuStatus::kOk);
  const Eigen::VectorXd b = rhs(static_cast<int>(model_matrix.rows()), 2);
  for (const auto& mode : {all_off, mixed}) {
    const SparseMatrix a = clamp_mode_matrix(sections, mode);
    KluFactor like, fresh;
    ASSERT_EQ(like.refactor_like(model, sym, a), LuStatus::kOk);
    EXPECT_EQ(like.refactorizations(), 1);
    EXPECT_EQ(like.factorizations(), 0);
    ASSERT_EQ(fresh.factor(sym, a), LuStatus::kOk);
    EXPECT_LE(rel_diff(solve_with(like, b), solve_with(fresh, b)), 1e-10);
  }
  // The model itself is untouched.
  const Eigen::VectorXd ref = Eigen::MatrixXd(model_matrix).partialPivLu().solve(b);
  EXPECT_LE(rel_diff(solve_with(model, b), ref), 1e-10);
}

TEST(FactorReuse, ModelWhosePivotsDoNotSuitFallsBackToAFreshFactorization) {
  // Factored with every pair blocking, the model pivots row n + j on λ_j (entry 1), which is 0
  // once pair j conducts: the refactorization meets a zero pivot and a fresh one follows.
  const int sections = 300;
  const SparseMatrix off = clamp_mode_matrix(sections, std::vector<char>(sections, 0));
  const SparseMatrix on = clamp_mode_matrix(sections, std::vector<char>(sections, 1));
  KluSymbolic sym;
  ASSERT_EQ(sym.analyze(off), LuStatus::kOk);
  KluFactor model, like;
  ASSERT_EQ(model.factor(sym, off), LuStatus::kOk);
  ASSERT_EQ(like.refactor_like(model, sym, on), LuStatus::kOk);
  EXPECT_EQ(like.factorizations(), 1);
  EXPECT_EQ(like.refactorizations(), 0);
  const Eigen::VectorXd b = rhs(static_cast<int>(on.rows()), 3);
  EXPECT_LE(rel_diff(solve_with(like, b), Eigen::MatrixXd(on).partialPivLu().solve(b)), 1e-10);
  // Another analysis: no copy, a fresh factorization.
  KluSymbolic other;
  ASSERT_EQ(other.analyze(on), LuStatus::kOk);
  KluFactor from_other;
  ASSERT_EQ(from_other.refactor_like(model, other, on), LuStatus::kOk);
  EXPECT_EQ(from_other.factorizations(), 1);
}

TEST(FactorReuse, CacheAnswersMissesFromTheModelWithMostPairsOn) {
  // 3000 sections: over kModelMinNonzeros entries, so the cache tries the model on its first
  // kModelTrials misses.
  const int sections = 3000;
  std::vector<char> all_on(sections, 1);
  KluSymbolic sym;
  ASSERT_EQ(sym.analyze(clamp_mode_matrix(sections, all_on)), LuStatus::kOk);
  FactorCache cache(16);
  ASSERT_NE(cache.get("on", sym, clamp_mode_matrix(sections, all_on), sections), nullptr);
  EXPECT_EQ(cache.factorizations(), 1);
  const Eigen::VectorXd b = rhs(static_cast<int>(sym.rows()), 4);
  for (int k = 1; k <= FactorModel::kModelTrials; ++k) {
    std::vector<char> mode(sections, 0);
    for (int j = 0; j < sections; j += k + 1) mode[j] = 1;
    const SparseMatrix a = clamp_mode_matrix(sections, mode);
    int on = 0;
    for (char c : mode) on += c;
    const KluFactor* f = cache.get("mode" + std::to_string(k), sym, a, on);
    ASSERT_NE(f, nullptr);
    KluFactor fresh;
    ASSERT_EQ(fresh.factor(sym, a), LuStatus::kOk);
    EXPECT_LE(rel_diff(solve_with(*f, b), solve_with(fresh, b)), 1e-10);
  }
  EXPECT_EQ(cache.stats().model_attempts, FactorModel::kModelTrials);
  EXPECT_EQ(cache.stats().model_failures, 0);
  EXPECT_EQ(cache.factorizations(), 1);
  EXPECT_EQ(cache.refactorizations(), FactorModel::kModelTrials);
  EXPECT_EQ(cache.stats().misses, 1 + FactorModel::kModelTrials);
}

// The cost model's inputs are KLU's counts of the factorizations, nothing measured: the cost of a
// fresh factorization recorded by the cache is that of an independent factorization of the same
// matrix, the model's is computed from its own counts, and the choice follows the rule of
// factor_cache.hpp. Two caches on two analyses fed the same misses choose alike and give
// bit-identical solutions.
TEST(FactorReuse, CostModelIsAFunctionOfKluCountsOnly) {
  const int sections = 3000;
  const std::vector<char> all_on(sections, 1);
  const SparseMatrix on = clamp_mode_matrix(sections, all_on);
  const auto nonzeros = static_cast<double>(on.nonZeros());
  auto mode_matrix = [&](int k) {
    std::vector<char> mode(sections, 0);
    for (int j = k % 5; j < sections; j += 2 + k % 3) mode[j] = 1;
    return clamp_mode_matrix(sections, mode);
  };
  const Eigen::VectorXd b = rhs(static_cast<int>(on.rows()), 5);
  std::vector<std::vector<Eigen::VectorXd>> solutions(2);
  std::vector<FactorCacheStats> stats(2);
  for (int run = 0; run < 2; ++run) {
    KluSymbolic sym;
    ASSERT_EQ(sym.analyze(on), LuStatus::kOk);
    FactorCache cache(4);
    ASSERT_NE(cache.get("on", sym, on, sections), nullptr);
    const FactorModel& model = sym.model();
    KluFactor ref;
    ASSERT_EQ(ref.factor(sym, on), LuStatus::kOk);
    EXPECT_GT(ref.flops(), 0);
    EXPECT_GE(ref.lu_entries(), static_cast<double>(on.rows()));
    EXPECT_EQ(model.fresh_count, 1);
    EXPECT_EQ(model.fresh_cost, FactorModel::cost_fresh(ref, nonzeros));
    EXPECT_EQ(model.cost_model(nonzeros),
              ref.flops() +
                  (FactorModel::kRefactorPerEntry + FactorModel::kCopyPerEntry) * ref.lu_entries() +
                  FactorModel::kPerNonzero * nonzeros);
    // After its trials (all held: a pivot order with every pair on serves every mode), the
    // model answers every miss exactly when the rule says it is the cheaper way.
    const bool cheaper = model.cost_model(nonzeros) < FactorModel::kModelGain * model.mean_fresh();
    EXPECT_TRUE(cheaper) << "the clamp chain's model should cost less than a fresh factorization";
    const int misses = 12;
    for (int k = 1; k <= misses; ++k) {
      const KluFactor* f = cache.get("mode" + std::to_string(k), sym, mode_matrix(k), 0);
      ASSERT_NE(f, nullptr);
      solutions[run].push_back(solve_with(*f, b));
    }
    EXPECT_EQ(cache.stats().model_attempts, cheaper ? misses : FactorModel::kModelTrials);
    EXPECT_EQ(cache.stats().model_failures, 0);
    stats[run] = cache.stats();
  }
  EXPECT_EQ(stats[0].model_attempts, stats[1].model_attempts);
  EXPECT_EQ(stats[0].misses, stats[1].misses);
  for (size_t k = 0; k < solutions[0].size(); ++k)
    for (Eigen::Index i = 0; i < b.size(); ++i)
      ASSERT_EQ(solutions[0][k][i], solutions[1][k][i]) << "miss " << k << " entry " << i;
}

// Two caches sharing one FactorBudget (the solvers of two step sizes): the bytes of both count
// against it, the least recently used entry of either goes first, the entry just computed stays,
// and a cache whose most recent entry was dropped by the other no longer answers for it.
TEST(FactorReuse, CachesSharingABudgetDropTheLeastRecentlyUsedOfEither) {
  const int sections = 200;
  std::vector<char> off(sections, 0);
  KluSymbolic sym;
  ASSERT_EQ(sym.analyze(clamp_mode_matrix(sections, std::vector<char>(sections, 1))),
            LuStatus::kOk);
  auto mode_matrix = [&](int k) {
    std::vector<char> mode = off;
    for (int j = 0; j < sections; j += k + 1) mode[j] = 1;
    return clamp_mode_matrix(sections, mode);
  };
  KluFactor probe;
  ASSERT_EQ(probe.factor(sym, mode_matrix(1)), LuStatus::kOk);
  const double one = probe.bytes();
  ASSERT_GT(one, 0);
  // Room for three factors (the sizes of these modes differ by a few per cent at most).
  FactorBudget budget(3.5 * one);
  FactorCache a(16, &budget), b(16, &budget);
  const KluFactor* a1 = a.get("1", sym, mode_matrix(1));
  ASSERT_NE(a1, nullptr);
  ASSERT_NE(b.get("2", sym, mode_matrix(2)), nullptr);
  ASSERT_NE(a.get("3", sym, mode_matrix(3)), nullptr);
  EXPECT_EQ(budget.evictions(), 0);
  EXPECT_NEAR(budget.bytes(), a.bytes() + b.bytes(), 1e-9 * budget.bytes());
  EXPECT_EQ(a.front_hit(a1), nullptr);                  // "3" is a's most recent entry now
  ASSERT_NE(b.get("4", sym, mode_matrix(4)), nullptr);  // over the budget: a's "1" goes
  EXPECT_EQ(budget.evictions(), 1);
  EXPECT_EQ(a.find("1"), nullptr);
  EXPECT_NE(b.find("2"), nullptr);                        // touched: now more recent than a's "3"
  const KluFactor* b5 = b.get("5", sym, mode_matrix(5));  // a's "3" goes, a is empty
  ASSERT_NE(b5, nullptr);
  EXPECT_EQ(a.size(), 0);
  EXPECT_EQ(b.size(), 3);
  EXPECT_LE(budget.bytes(), budget.limit());
  EXPECT_LE(budget.peak(), budget.limit() + 1.1 * one);
  EXPECT_GE(budget.peak(), 3 * 0.9 * one);
  EXPECT_EQ(b.front_hit(b5), b5);
  // a's next factor drops b's least recently used ("4"); b's most recent stays valid.
  ASSERT_NE(a.get("6", sym, mode_matrix(6)), nullptr);
  EXPECT_EQ(b.find("4"), nullptr);
  EXPECT_EQ(b.front_hit(b5), b5);
}

// A random sparse matrix of order n on one pattern (a diagonal and `per_column` random entries
// per column, fixed by `pattern_seed`) with values drawn from `value_seed`: diagonally dominant by
// columns, so that every pivot order of the pattern is stable.
SparseMatrix random_on_pattern(int n, int per_column, unsigned pattern_seed, unsigned value_seed) {
  std::mt19937 pattern(pattern_seed), values(value_seed);
  std::uniform_int_distribution<int> row(0, n - 1);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  Triplets t;
  for (int j = 0; j < n; ++j) {
    double column_sum = 0;
    for (int k = 0; k < per_column; ++k) {
      const int i = row(pattern);
      if (i == j) continue;
      const double v = value(values);
      t.emplace_back(i, j, v);
      column_sum += std::abs(v);
    }
    t.emplace_back(j, j, column_sum + 0.5 + std::abs(value(values)));
  }
  return compressed(n, t);
}

// A miss answered from the model on an entry that holds the model's pivot structure already (a
// recycled copy of the model, or the fresh factorization the model was copied from) is refactored
// in place: no copy. Its solutions are those of a new copy of the model, bit for bit, and those
// of a fresh factorization to 1e-12 relative, on a sequence of random values on one pattern.
TEST(FactorReuse, RecycledEntryWithTheModelsStructureIsRefactoredInPlace) {
  const int n = 1400, per_column = 3, misses = 8;
  const SparseMatrix first = random_on_pattern(n, per_column, 11, 100);
  ASSERT_GE(first.nonZeros(), kModelMinNonzeros);
  KluSymbolic sym;
  ASSERT_EQ(sym.analyze(first), LuStatus::kOk);
  FactorCache cache(1);                                   // every miss recycles the one entry
  ASSERT_NE(cache.get("first", sym, first, 1), nullptr);  // fresh: the model (score 1)
  const FactorModel& model = sym.model();
  ASSERT_TRUE(model.factor.valid());
  const Eigen::VectorXd b = rhs(n, 6);
  long model_misses = 0;
  for (int k = 1; k <= misses; ++k) {
    const SparseMatrix a = random_on_pattern(n, per_column, 11, 100 + k);
    const long attempts_before = cache.stats().model_attempts;
    const KluFactor* f = cache.get("mode" + std::to_string(k), sym, a, 0);
    ASSERT_NE(f, nullptr);
    KluFactor fresh;
    ASSERT_EQ(fresh.factor(sym, a), LuStatus::kOk);
    EXPECT_LE(rel_diff(solve_with(*f, b), solve_with(fresh, b)), 1e-12) << "miss " << k;
    if (cache.stats().model_attempts == attempts_before) continue;  // the cost model said no
    ++model_misses;
    EXPECT_TRUE(f->same_structure(model.factor));
    KluFactor copied;  // a new copy of the model, refactored: the same bits
    ASSERT_EQ(copied.refactor_like(model.factor, sym, a), LuStatus::kOk);
    EXPECT_EQ(copied.in_place_starts(), 0);
    const Eigen::VectorXd x = solve_with(*f, b), y = solve_with(copied, b);
    for (Eigen::Index i = 0; i < n; ++i) ASSERT_EQ(x[i], y[i]) << "miss " << k << " entry " << i;
  }
  EXPECT_GE(model_misses, FactorModel::kModelTrials);
  EXPECT_EQ(cache.stats().model_attempts, model_misses);
  EXPECT_EQ(cache.stats().model_in_place, model_misses);
  EXPECT_EQ(cache.stats().model_failures, 0);
  EXPECT_EQ(cache.factorizations(), 1);
}

// An in-place refactorization that fails the accuracy tests falls back to a fresh factorization,
// as a new copy does: factored with every pair blocking, the model pivots on λ_j, which is 0 once
// pair j conducts.
TEST(FactorReuse, InPlaceRefactorizationThatFailsFallsBackToAFreshFactorization) {
  const int sections = 3000;
  const SparseMatrix off = clamp_mode_matrix(sections, std::vector<char>(sections, 0));
  std::vector<char> some(sections, 0);
  for (int j = 0; j < sections; j += 4) some[j] = 1;
  const SparseMatrix on = clamp_mode_matrix(sections, some);
  KluSymbolic sym;
  ASSERT_EQ(sym.analyze(off), LuStatus::kOk);
  const Eigen::VectorXd b = rhs(static_cast<int>(off.rows()), 7);
  // Directly: an entry holding the model's structure.
  KluFactor model, like;
  ASSERT_EQ(model.factor(sym, off), LuStatus::kOk);
  ASSERT_EQ(like.refactor_like(model, sym, off), LuStatus::kOk);  // a new copy
  ASSERT_TRUE(like.same_structure(model));
  ASSERT_EQ(like.refactor_like(model, sym, on), LuStatus::kOk);
  EXPECT_EQ(like.in_place_starts(), 1);
  EXPECT_EQ(like.refactorizations(), 1);  // the first call's only
  EXPECT_EQ(like.factorizations(), 1);    // the fallback
  EXPECT_FALSE(like.same_structure(model));
  KluFactor fresh;
  ASSERT_EQ(fresh.factor(sym, on), LuStatus::kOk);
  const Eigen::VectorXd ref = solve_with(fresh, b);
  EXPECT_LE(rel_diff(solve_with(like, b), ref), 1e-12);
  // Through the cache: a model of score 5 (made to rank above the modes asked for), one entry.
  FactorCache cache(1);
  ASSERT_NE(cache.get("off", sym, off, 5), nullptr);
  ASSERT_NE(cache.get("off again", sym, off, 0), nullptr);  // in place, held
  const KluFactor* f = cache.get("some on", sym, on, 0);    // in place, fails, fresh
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(cache.stats().model_attempts, 2);
  EXPECT_EQ(cache.stats().model_in_place, 2);
  EXPECT_EQ(cache.stats().model_failures, 1);
  EXPECT_EQ(cache.factorizations(), 2);
  EXPECT_LE(rel_diff(solve_with(*f, b), ref), 1e-12);
}

// The budget keeps the factor of the entry it dropped last as a spare; the next new entry that
// uses the model takes it and refactors it in place (no new memory). The spare is counted in the
// peak, never more than one factor beside the budget, and a fresh factorization frees it first.
TEST(FactorReuse, BudgetSpareServesTheNextMissFromTheModel) {
  const int sections = 3000;
  const SparseMatrix all_on = clamp_mode_matrix(sections, std::vector<char>(sections, 1));
  KluSymbolic sym;
  ASSERT_EQ(sym.analyze(all_on), LuStatus::kOk);
  KluFactor probe;
  ASSERT_EQ(probe.factor(sym, all_on), LuStatus::kOk);
  const double one = probe.bytes();
  FactorBudget budget(2.5 * one);
  FactorCache cache(16, &budget);
  ASSERT_NE(cache.get("on", sym, all_on, sections), nullptr);
  const FactorModel& model = sym.model();
  const Eigen::VectorXd b = rhs(static_cast<int>(all_on.rows()), 8);
  const int misses = 8;
  for (int k = 1; k <= misses; ++k) {
    std::vector<char> mode(sections, 0);
    for (int j = k % 3; j < sections; j += k + 1) mode[j] = 1;
    const SparseMatrix a = clamp_mode_matrix(sections, mode);
    const KluFactor* f = cache.get("mode" + std::to_string(k), sym, a, 0);
    ASSERT_NE(f, nullptr);
    KluFactor copied;
    ASSERT_EQ(copied.refactor_like(model.factor, sym, a), LuStatus::kOk);
    const Eigen::VectorXd x = solve_with(*f, b), y = solve_with(copied, b);
    for (Eigen::Index i = 0; i < b.size(); ++i) ASSERT_EQ(x[i], y[i]) << "miss " << k;
    EXPECT_LE(budget.bytes(), budget.limit());
    EXPECT_LE(budget.spare_bytes(), 1.01 * one);
  }
  EXPECT_EQ(cache.stats().model_attempts, misses);  // the chain's model is the cheaper way
  EXPECT_EQ(cache.size(), 2);
  EXPECT_EQ(budget.evictions(), misses - 1);
  // Every eviction but the last left a spare that the next miss took.
  EXPECT_EQ(cache.stats().spares_used, misses - 2);
  EXPECT_EQ(cache.stats().model_in_place, misses - 2);
  EXPECT_EQ(budget.spares(), 1);
  EXPECT_LE(budget.peak(), budget.limit() + 1.01 * one);
  // A fresh factorization (a mode ranked above the model) frees the spare first.
  ASSERT_NE(cache.get("fresh", sym, all_on, sections + 1), nullptr);
  EXPECT_EQ(cache.factorizations(), 2);
  EXPECT_EQ(budget.spares(), 1);  // the entry it dropped
}

// The template offered once per analysis becomes the model itself, not a copy of it (it is not
// cached): the model's factor is the fresh factorization (its count of fresh factorizations is
// 1; a copy's is 0), with the bits of an independent factorization of the same matrix.
TEST(FactorReuse, OfferedTemplateBecomesTheModelWithoutACopy) {
  const int sections = 3000;
  std::vector<char> all_on(sections, 1), some(sections, 0);
  for (int j = 0; j < sections; j += 5) some[j] = 1;
  const SparseMatrix on = clamp_mode_matrix(sections, all_on);
  KluSymbolic sym;
  ASSERT_EQ(sym.analyze(on), LuStatus::kOk);
  FactorCache cache(4);
  ASSERT_NE(cache.get("some", sym, clamp_mode_matrix(sections, some), 10), nullptr);
  const FactorModel& model = sym.model();
  ASSERT_EQ(model.score, 10);
  EXPECT_EQ(model.factor.factorizations(), 0);  // adopted from the cached entry: a copy
  cache.offer_model(sym, on, sections);
  EXPECT_EQ(model.score, sections);
  EXPECT_EQ(model.factor.factorizations(), 1);
  EXPECT_EQ(cache.factorizations(), 2);
  EXPECT_EQ(cache.size(), 1);
  KluFactor fresh;
  ASSERT_EQ(fresh.factor(sym, on), LuStatus::kOk);
  const Eigen::VectorXd b = rhs(static_cast<int>(on.rows()), 9);
  const Eigen::VectorXd x = solve_with(model.factor, b), y = solve_with(fresh, b);
  for (Eigen::Index i = 0; i < b.size(); ++i) ASSERT_EQ(x[i], y[i]) << "entry " << i;
}

}  // namespace
}  // namespace nsspice::solvers
