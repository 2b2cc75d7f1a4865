// Nested-dissection ordering (METIS) and its use by the KLU wrapper for large matrices.
// A circuit-like ladder (MNA of an RC chain with a voltage source: a zero diagonal entry, a
// nonsymmetric pattern) of n ≥ kNestedDissectionMin unknowns: the ordering is a permutation,
// its elimination tree is shallow (the reason for using it), and the factorization solves to
// a relative residual ≤ 1e-12; a structurally singular large pattern is still reported so.
#include "solvers/linear/nested_dissection.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "solvers/linear/klu_lu.hpp"

namespace nsspice::solvers {
namespace {

// Node voltages v_0..v_{n-2} of a chain of conductances g with capacitive diagonal c, and the
// current i of a voltage source at node 0 (last unknown): [G + C, e_0; e_0ᵀ, 0].
SparseMatrix ladder(int n) {
  std::vector<Eigen::Triplet<double, int>> t;
  const int nodes = n - 1;
  for (int k = 0; k < nodes; ++k) {
    t.emplace_back(k, k, 2.0 + 1e-3 * k);
    if (k + 1 < nodes) {
      t.emplace_back(k, k + 1, -1.0);
      t.emplace_back(k + 1, k, -0.9);  // nonsymmetric values (a controlled source's share)
    }
  }
  t.emplace_back(0, nodes, 1.0);
  t.emplace_back(nodes, 0, 1.0);
  SparseMatrix a(n, n);
  a.setFromTriplets(t.begin(), t.end());
  a.makeCompressed();
  return a;
}

// Depth of the elimination tree of the symmetric pattern of a permuted by p (Liu's algorithm):
// a lower bound on the sequential steps of a triangular solve.
int etree_depth(const SparseMatrix& a, const std::vector<int>& p) {
  const int n = static_cast<int>(a.cols());
  std::vector<int> pos(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) pos[static_cast<size_t>(p[static_cast<size_t>(k)])] = k;
  std::vector<std::vector<int>> lower(static_cast<size_t>(n));  // neighbours numbered earlier
  for (int j = 0; j < n; ++j)
    for (SparseMatrix::InnerIterator it(a, j); it; ++it) {
      const int u = pos[static_cast<size_t>(it.row())], v = pos[static_cast<size_t>(j)];
      if (u != v) lower[static_cast<size_t>(std::max(u, v))].push_back(std::min(u, v));
    }
  std::vector<int> parent(static_cast<size_t>(n), -1), ancestor(static_cast<size_t>(n), -1);
  for (int k = 0; k < n; ++k)
    for (int i : lower[static_cast<size_t>(k)]) {
      while (i != -1 && i < k) {  // path compression towards k
        const int next = ancestor[static_cast<size_t>(i)];
        ancestor[static_cast<size_t>(i)] = k;
        if (next == -1) parent[static_cast<size_t>(i)] = k;
        i = next;
      }
    }
  std::vector<int> depth(static_cast<size_t>(n), 1);
  int deepest = 0;
  for (int k = n - 1; k >= 0; --k) {
    const int up = parent[static_cast<size_t>(k)];
    if (up >= 0) depth[static_cast<size_t>(k)] = depth[static_cast<size_t>(up)] + 1;
    deepest = std::max(deepest, depth[static_cast<size_t>(k)]);
  }
  return deepest;
}

TEST(NestedDissection, PermutationWithAShallowEliminationTree) {
  const int n = 4001;
  const SparseMatrix a = ladder(n);
  const auto p = nested_dissection(a);
  ASSERT_TRUE(p.has_value());
  ASSERT_EQ(static_cast<int>(p->size()), n);
  std::vector<int> sorted = *p;
  std::sort(sorted.begin(), sorted.end());
  for (int k = 0; k < n; ++k) ASSERT_EQ(sorted[static_cast<size_t>(k)], k);
  std::vector<int> natural(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) natural[static_cast<size_t>(k)] = k;
  // The chain in its natural order: a path-shaped tree of depth ≈ n. Dissected: a few hundred.
  EXPECT_GT(etree_depth(a, natural), n / 2);
  EXPECT_LT(etree_depth(a, *p), n / 10);
}

TEST(NestedDissection, LargeLadderFactorsAndSolvesToRoundOff) {
  for (int n : {kNestedDissectionMin - 1, kNestedDissectionMin, 20001}) {
    const SparseMatrix a = ladder(n);
    KluSymbolic sym;
    ASSERT_EQ(sym.analyze(a), LuStatus::kOk) << n;
    KluFactor f;
    ASSERT_EQ(f.factor(sym, a), LuStatus::kOk) << n;
    Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(n, -1.0, 2.0);
    Eigen::VectorXd x = b;
    f.solve(x);
    const double residual = (a * x - b).lpNorm<Eigen::Infinity>();
    EXPECT_LE(residual, 1e-12 * (1.0 + b.lpNorm<Eigen::Infinity>())) << n;
    // Same pattern, new values: the refactorization keeps the ordering.
    SparseMatrix a2 = a;
    for (int k = 0; k < a2.nonZeros(); ++k) a2.valuePtr()[k] *= 1.5;
    ASSERT_EQ(f.refactor(sym, a2), LuStatus::kOk) << n;
    x = b;
    f.solve(x);
    EXPECT_LE((a2 * x - b).lpNorm<Eigen::Infinity>(), 1e-12 * (1.0 + b.lpNorm<Eigen::Infinity>()))
        << n;
  }
}

TEST(NestedDissection, LargeStructurallySingularPatternIsReported) {
  const int n = 2 * kNestedDissectionMin;
  SparseMatrix a = ladder(n);
  // Empty the last column (the source current appears nowhere): structural rank n − 1.
  std::vector<Eigen::Triplet<double, int>> t;
  for (int j = 0; j < n - 1; ++j)
    for (SparseMatrix::InnerIterator it(a, j); it; ++it)
      t.emplace_back(static_cast<int>(it.row()), j, it.value());
  SparseMatrix s(n, n);
  s.setFromTriplets(t.begin(), t.end());
  s.makeCompressed();
  KluSymbolic sym;
  EXPECT_EQ(sym.analyze(s), LuStatus::kSingular);
}

}  // namespace
}  // namespace nsspice::solvers
