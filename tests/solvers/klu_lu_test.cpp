// Tests for the KLU wrapper: solves are compared with Eigen's dense partial-pivoting LU.
// Tolerance: ||x_klu - x_dense||_inf <= 1e-10 * max(1, ||x_dense||_inf) for well-conditioned
// random systems (fixed seeds).
#include "solvers/linear/klu_lu.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cstring>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

namespace nsspice::solvers {
namespace {

constexpr double kTol = 1e-10;

SparseMatrix to_sparse(const Eigen::MatrixXd& dense, const Eigen::MatrixXi& pattern) {
  std::vector<Eigen::Triplet<double, int>> triplets;
  for (int j = 0; j < dense.cols(); ++j) {
    for (int i = 0; i < dense.rows(); ++i) {
      if (pattern(i, j) != 0) triplets.emplace_back(i, j, dense(i, j));  // explicit zeros kept
    }
  }
  SparseMatrix a(dense.rows(), dense.cols());
  a.setFromTriplets(triplets.begin(), triplets.end());
  a.makeCompressed();
  return a;
}

SparseMatrix to_sparse(const Eigen::MatrixXd& dense) {
  return to_sparse(dense, (dense.array() != 0.0).cast<int>().matrix());
}

// Random sparse matrix with ~density off-diagonal entries and a full diagonal.
Eigen::MatrixXd random_sparse_dense(int n, double density, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i == j || coin(gen) < density) a(i, j) = val(gen);
    }
    a(i, i) += (a(i, i) >= 0 ? 1.0 : -1.0);  // keep it comfortably nonsingular
  }
  return a;
}

double max_rel_error(const Eigen::VectorXd& x, const Eigen::VectorXd& ref) {
  return (x - ref).lpNorm<Eigen::Infinity>() / std::max(1.0, ref.lpNorm<Eigen::Infinity>());
}

void expect_solves(const KluFactor& f, const Eigen::MatrixXd& dense, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> nd;
  Eigen::VectorXd b(dense.rows());
  for (auto& v : b) v = nd(gen);
  const Eigen::VectorXd ref = dense.partialPivLu().solve(b);
  Eigen::VectorXd x = b;
  f.solve(x);
  EXPECT_LE(max_rel_error(x, ref), kTol);
}

TEST(KluLu, SolvesSmallHandSystem) {
  Eigen::MatrixXd d(3, 3);
  d << 4, -1, 0, -1, 4, -1, 0, -1, 4;
  const SparseMatrix a = to_sparse(d);
  KluSymbolic sym;
  ASSERT_EQ(sym.analyze(a), LuStatus::kOk);
  EXPECT_TRUE(sym.analyzed());
  EXPECT_EQ(sym.rows(), 3);
  KluFactor f;
  ASSERT_EQ(f.factor(sym, a), LuStatus::kOk);
  EXPECT_TRUE(f.valid());
  EXPECT_GT(f.rcond(), 0.1);
  Eigen::VectorXd x(3);
  x << 3, 2, 3;  // exact solution (1, 1, 1)
  f.solve(x);
  EXPECT_LE((x - Eigen::VectorXd::Ones(3)).lpNorm<Eigen::Infinity>(), 1e-14);
  EXPECT_EQ(f.factorizations(), 1);
  EXPECT_EQ(f.refactorizations(), 0);
}

TEST(KluLu, RandomSparseSystemsMatchDenseLu) {
  for (const int n : {1, 2, 5, 20, 100, 300}) {
    for (unsigned seed = 1; seed <= 3; ++seed) {
      const Eigen::MatrixXd d = random_sparse_dense(n, 5.0 / n, 100 * n + seed);
      const SparseMatrix a = to_sparse(d);
      KluSymbolic sym;
      ASSERT_EQ(sym.analyze(a), LuStatus::kOk) << n;
      KluFactor f;
      ASSERT_EQ(f.factor(sym, a), LuStatus::kOk) << n;
      expect_solves(f, d, seed);
    }
  }
}

TEST(KluLu, RefactorWithNewValuesReusesPivots) {
  const Eigen::MatrixXd d1 = random_sparse_dense(60, 0.08, 7);
  const Eigen::MatrixXi pattern = (d1.array() != 0.0).cast<int>().matrix();
  KluSymbolic sym;
  ASSERT_EQ(sym.analyze(to_sparse(d1, pattern)), LuStatus::kOk);
  KluFactor f;
  ASSERT_EQ(f.factor(sym, to_sparse(d1, pattern)), LuStatus::kOk);
  Eigen::MatrixXd d2 = d1;
  for (int k = 0; k < 5; ++k) {
    d2 = (d2.array() * (1.0 + 0.1 * (k + 1))).matrix();  // same pattern, new values
    d2.diagonal().array() += 0.3;
    ASSERT_EQ(f.refactor(sym, to_sparse(d2, pattern)), LuStatus::kOk);
    expect_solves(f, d2, 10 + k);
  }
  EXPECT_EQ(f.factorizations(), 1);
  EXPECT_EQ(f.refactorizations(), 5);
}

TEST(KluLu, RefactorWithoutNumericFactorsFreshly) {
  const Eigen::MatrixXd d = random_sparse_dense(10, 0.3, 3);
  const SparseMatrix a = to_sparse(d);
  KluSymbolic sym;
  ASSERT_EQ(sym.analyze(a), LuStatus::kOk);
  KluFactor f;
  ASSERT_EQ(f.refactor(sym, a), LuStatus::kOk);
  EXPECT_EQ(f.factorizations(), 1);
  EXPECT_EQ(f.refactorizations(), 0);
  expect_solves(f, d, 4);
}

// Factor with a dominant diagonal (diagonal pivots), then refactor with values whose
// diagonal is zero / tiny: the stale pivot order is unusable and refactor must fall back.
TEST(KluLu, RefactorFallsBackWhenPivotsMustChange) {
  const Eigen::MatrixXi full = Eigen::MatrixXi::Ones(2, 2);
  Eigen::MatrixXd d1(2, 2);
  d1 << 4, 1, 1, 4;
  KluSymbolic sym;
  ASSERT_EQ(sym.analyze(to_sparse(d1, full)), LuStatus::kOk);
  KluFactor f;
  ASSERT_EQ(f.factor(sym, to_sparse(d1, full)), LuStatus::kOk);

  Eigen::MatrixXd d2(2, 2);
  d2 << 0, 1, 1, 0;  // explicit zeros on the diagonal: zero stale pivot
  ASSERT_EQ(f.refactor(sym, to_sparse(d2, full)), LuStatus::kOk);
  EXPECT_EQ(f.factorizations(), 2);
  EXPECT_EQ(f.refactorizations(), 0);
  expect_solves(f, d2, 1);

  Eigen::MatrixXd d3(2, 2);
  d3 << 1e-18, 1, 1, 1e-18;  // tiny stale pivot: huge growth, rcond ~ 1e-36
  ASSERT_EQ(f.factor(sym, to_sparse(d1, full)), LuStatus::kOk);
  ASSERT_EQ(f.refactor(sym, to_sparse(d3, full)), LuStatus::kOk);
  EXPECT_EQ(f.factorizations(), 4);
  EXPECT_EQ(f.refactorizations(), 0);
  expect_solves(f, d3, 2);
}

TEST(KluLu, RefactorFallbackOnLargerCyclicSystem) {
  const int n = 40;
  Eigen::MatrixXi pattern = Eigen::MatrixXi::Identity(n, n);
  Eigen::MatrixXd d1 = 5.0 * Eigen::MatrixXd::Identity(n, n);
  Eigen::MatrixXd d2 = 1e-17 * Eigen::MatrixXd::Identity(n, n);
  for (int i = 0; i < n; ++i) {
    pattern(i, (i + 1) % n) = 1;
    d1(i, (i + 1) % n) = 1.0;
    d2(i, (i + 1) % n) = 1.0 + 0.01 * i;
  }
  KluSymbolic sym;
  ASSERT_EQ(sym.analyze(to_sparse(d1, pattern)), LuStatus::kOk);
  KluFactor f;
  ASSERT_EQ(f.factor(sym, to_sparse(d1, pattern)), LuStatus::kOk);
  ASSERT_EQ(f.refactor(sym, to_sparse(d2, pattern)), LuStatus::kOk);
  EXPECT_EQ(f.factorizations(), 2);
  expect_solves(f, d2, 3);
}

TEST(KluLu, StructurallySingularPattern) {
  Eigen::MatrixXd d(3, 3);
  d << 1, 2, 3, 4, 0, 0, 5, 0, 0;  // rows 1 and 2 only touch column 0: structural rank 2
  KluSymbolic sym;
  EXPECT_EQ(sym.analyze(to_sparse(d)), LuStatus::kSingular);
  EXPECT_FALSE(sym.analyzed());
  KluFactor f;
  EXPECT_EQ(f.factor(sym, to_sparse(d)), LuStatus::kNotAnalyzed);
  EXPECT_FALSE(f.valid());
}

TEST(KluLu, NumericallySingularEqualRows) {
  Eigen::MatrixXd d(2, 2);
  d << 1, 2, 1, 2;
  const SparseMatrix a = to_sparse(d);
  KluSymbolic sym;
  ASSERT_EQ(sym.analyze(a), LuStatus::kOk);
  KluFactor f;
  EXPECT_EQ(f.factor(sym, a), LuStatus::kSingular);
  EXPECT_FALSE(f.valid());
  EXPECT_EQ(f.rcond(), 0.0);
  Eigen::VectorXd b = Eigen::VectorXd::Ones(2);
  EXPECT_THROW(f.solve(b), std::logic_error);
}

TEST(KluLu, NumericallySingularDependentRowAndRefactor) {
  Eigen::MatrixXd d(3, 3);
  d << 1, 2, 3, 4, 5, 6, 5, 7, 9;  // row 2 = row 0 + row 1 (rank 2)
  const Eigen::MatrixXi full = Eigen::MatrixXi::Ones(3, 3);
  KluSymbolic sym;
  ASSERT_EQ(sym.analyze(to_sparse(d, full)), LuStatus::kOk);
  KluFactor f;
  EXPECT_EQ(f.factor(sym, to_sparse(d, full)), LuStatus::kSingular);
  EXPECT_FALSE(f.valid());
  // A valid factor that is refactored with singular values also reports kSingular.
  Eigen::MatrixXd good = d;
  good(2, 2) = 10;
  ASSERT_EQ(f.factor(sym, to_sparse(good, full)), LuStatus::kOk);
  EXPECT_EQ(f.refactor(sym, to_sparse(d, full)), LuStatus::kSingular);
  EXPECT_FALSE(f.valid());
}

// The singularity test does not depend on the units of the unknowns (klu_lu.hpp,
// kKluSingularRcond): a regular matrix whose columns differ in scale by 1e17 (a complementarity
// pair's λ on a segment at picoamperes, D_jj = 1e10 Ω, beside node columns of 1e6 S at a
// femtosecond step) is factored and solved to the dense LU's accuracy, where KLU's own
// min|U_kk|/max|U_kk| is below 1e-14; the same matrix with two dependent columns stays singular
// however its columns are scaled.
TEST(KluLu, ColumnScalesDoNotMakeARegularMatrixSingular) {
  Eigen::MatrixXd d(3, 3);
  d << 2, -1, 0, -1, 3, 1, 0, 1, -4;
  Eigen::VectorXd scale(3);
  scale << 1e6, 1.0, 1e-11;  // column scales
  const Eigen::MatrixXd scaled = d * scale.asDiagonal();
  const Eigen::MatrixXi full = Eigen::MatrixXi::Ones(3, 3);
  const SparseMatrix a = to_sparse(scaled, full);
  KluSymbolic sym;
  ASSERT_EQ(sym.analyze(a), LuStatus::kOk);
  KluFactor f;
  ASSERT_EQ(f.factor(sym, a), LuStatus::kOk);
  // KLU's own estimate of this matrix is 1.1e-16 (row scaling only); equilibrated, 2.75e-6.
  EXPECT_GT(f.rcond(), 1e-8);
  const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(3, 1.0, 3.0);
  Eigen::VectorXd x = b;
  f.solve(x);
  const Eigen::VectorXd ref = scaled.partialPivLu().solve(b);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(x[i], ref[i], 1e-12 * std::abs(ref[i])) << i;
  Eigen::MatrixXd dep = d;
  dep.col(2) = d.col(0) + d.col(1);
  const SparseMatrix singular = to_sparse(dep * scale.asDiagonal(), full);
  EXPECT_EQ(f.factor(sym, singular), LuStatus::kSingular);
}

TEST(KluLu, StatusForBadInputs) {
  Eigen::MatrixXd d = Eigen::MatrixXd::Identity(3, 3);
  KluSymbolic sym;
  KluFactor f;
  EXPECT_EQ(f.factor(sym, to_sparse(d)), LuStatus::kNotAnalyzed);
  EXPECT_EQ(f.refactor(sym, to_sparse(d)), LuStatus::kNotAnalyzed);
  SparseMatrix rect(3, 2);
  rect.makeCompressed();
  EXPECT_EQ(sym.analyze(rect), LuStatus::kError);
  SparseMatrix uncompressed = to_sparse(d);
  uncompressed.uncompress();
  EXPECT_EQ(sym.analyze(uncompressed), LuStatus::kError);
  ASSERT_EQ(sym.analyze(to_sparse(d)), LuStatus::kOk);
  d(0, 2) = 1.0;  // different pattern
  EXPECT_EQ(f.factor(sym, to_sparse(d)), LuStatus::kPatternMismatch);
  EXPECT_EQ(f.refactor(sym, to_sparse(d)), LuStatus::kPatternMismatch);
  Eigen::VectorXd wrong_size = Eigen::VectorXd::Ones(2);
  ASSERT_EQ(f.factor(sym, to_sparse(Eigen::MatrixXd::Identity(3, 3))), LuStatus::kOk);
  EXPECT_THROW(f.solve(wrong_size), std::logic_error);
}

TEST(KluLu, MoveSemantics) {
  const Eigen::MatrixXd d = random_sparse_dense(15, 0.2, 11);
  const SparseMatrix a = to_sparse(d);
  KluSymbolic sym0;
  ASSERT_EQ(sym0.analyze(a), LuStatus::kOk);
  KluSymbolic sym(std::move(sym0));
  EXPECT_TRUE(sym.analyzed());
  EXPECT_FALSE(sym0.analyzed());  // NOLINT(bugprone-use-after-move): moved-from is empty
  KluFactor f0;
  ASSERT_EQ(f0.factor(sym, a), LuStatus::kOk);
  KluFactor f(std::move(f0));
  EXPECT_TRUE(f.valid());
  EXPECT_FALSE(f0.valid());  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(f.factorizations(), 1);
  KluFactor g;
  g = std::move(f);
  EXPECT_TRUE(g.valid());
  {
    KluSymbolic gone = std::move(sym);  // the factor keeps the analysis alive
  }
  expect_solves(g, d, 5);
  // Moved-from objects are reusable.
  ASSERT_EQ(sym0.analyze(a), LuStatus::kOk);
  ASSERT_EQ(f0.factor(sym0, a), LuStatus::kOk);
  expect_solves(f0, d, 6);
}

TEST(KluLu, SolveManyMatchesColumnwiseSolve) {
  const Eigen::MatrixXd d = random_sparse_dense(30, 0.1, 21);
  const SparseMatrix a = to_sparse(d);
  KluSymbolic sym;
  ASSERT_EQ(sym.analyze(a), LuStatus::kOk);
  KluFactor f;
  ASSERT_EQ(f.factor(sym, a), LuStatus::kOk);
  std::mt19937 gen(22);
  std::normal_distribution<double> nd;
  Eigen::MatrixXd b(30, 4);
  for (auto& v : b.reshaped()) v = nd(gen);
  const Eigen::MatrixXd ref = d.partialPivLu().solve(b);
  Eigen::MatrixXd x = b;
  f.solve_many(x);
  EXPECT_LE((x - ref).lpNorm<Eigen::Infinity>(),
            kTol * std::max(1.0, ref.lpNorm<Eigen::Infinity>()));
  // A block with an outer stride larger than n (leading dimension 35).
  Eigen::MatrixXd big = Eigen::MatrixXd::Constant(35, 4, 7.0);
  big.topRows(30) = b;
  f.solve_many(big.topRows(30));
  EXPECT_LE((big.topRows(30) - ref).lpNorm<Eigen::Infinity>(),
            kTol * std::max(1.0, ref.lpNorm<Eigen::Infinity>()));
  EXPECT_EQ(big.bottomRows(5), Eigen::MatrixXd::Constant(5, 4, 7.0));
}

TEST(KluLu, EmptyMatrixIsTriviallyFactored) {
  SparseMatrix a(0, 0);
  a.makeCompressed();
  KluSymbolic sym;
  ASSERT_EQ(sym.analyze(a), LuStatus::kOk);
  EXPECT_EQ(sym.rows(), 0);
  KluFactor f;
  ASSERT_EQ(f.factor(sym, a), LuStatus::kOk);
  ASSERT_EQ(f.refactor(sym, a), LuStatus::kOk);
  EXPECT_TRUE(f.valid());
  Eigen::VectorXd b(0);
  f.solve(b);
  Eigen::MatrixXd bs(0, 3);
  f.solve_many(bs);
}

TEST(KluLu, DistinctObjectsAreIndependentAcrossThreads) {
  std::vector<Eigen::MatrixXd> mats;
  for (unsigned s = 0; s < 4; ++s) mats.push_back(random_sparse_dense(80, 0.05, 40 + s));
  std::vector<double> errors(mats.size(), 1.0);
  std::vector<std::thread> threads;
  for (std::size_t k = 0; k < mats.size(); ++k) {
    threads.emplace_back([&, k] {
      const SparseMatrix a = to_sparse(mats[k]);
      KluSymbolic sym;
      KluFactor f;
      if (sym.analyze(a) != LuStatus::kOk || f.factor(sym, a) != LuStatus::kOk) return;
      const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(80, -1.0, 1.0);
      Eigen::VectorXd x = b;
      f.solve(x);
      errors[k] = (mats[k] * x - b).lpNorm<Eigen::Infinity>();
    });
  }
  for (auto& t : threads) t.join();
  for (const double e : errors) EXPECT_LE(e, 1e-10);
}

// One analysis shared (KluSymbolic::share) by factors of matrices with its pattern and other
// values, on four threads at once: each factor and solve equals, bit for bit, the one made with
// an analysis of its own; a matrix of another pattern does not fit; the shares' models are
// their own.
TEST(KluLu, ASharedAnalysisServesSeveralThreadsAndChangesNoBit) {
  const Eigen::MatrixXd base = random_sparse_dense(120, 0.04, 7);
  const Eigen::MatrixXi pattern = (base.array() != 0.0).cast<int>().matrix();
  KluSymbolic shared;
  ASSERT_EQ(shared.analyze(to_sparse(base, pattern)), LuStatus::kOk);
  EXPECT_FALSE(shared.fits(to_sparse(random_sparse_dense(120, 0.04, 8))));
  EXPECT_FALSE(KluSymbolic().share().analyzed());
  std::vector<Eigen::VectorXd> with_shared(4), with_own(4);
  std::vector<std::thread> threads;
  for (std::size_t k = 0; k < 4; ++k) {
    threads.emplace_back([&, k] {
      std::mt19937 gen(100 + static_cast<unsigned>(k));
      std::uniform_real_distribution<double> scale(0.5, 2.0);
      Eigen::MatrixXd values = base;
      for (Eigen::Index i = 0; i < values.size(); ++i) values.data()[i] *= scale(gen);
      const SparseMatrix a = to_sparse(values, pattern);
      const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(120, -1.0, 1.0);
      const KluSymbolic mine = shared.share();
      KluSymbolic own;
      KluFactor f, g;
      if (!mine.fits(a) || f.factor(mine, a) != LuStatus::kOk || own.analyze(a) != LuStatus::kOk ||
          g.factor(own, a) != LuStatus::kOk)
        return;
      with_shared[k] = with_own[k] = b;
      f.solve(with_shared[k]);
      g.solve(with_own[k]);
      EXPECT_NE(&mine.model(), &shared.model());
    });
  }
  for (auto& t : threads) t.join();
  for (std::size_t k = 0; k < 4; ++k) {
    ASSERT_EQ(with_shared[k].size(), 120) << k;
    EXPECT_EQ(std::memcmp(with_shared[k].data(), with_own[k].data(), 120 * sizeof(double)), 0) << k;
  }
}

}  // namespace
}  // namespace nsspice::solvers
