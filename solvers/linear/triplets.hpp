#pragma once
// Assembling sparse block matrices from triplets: s·A placed at a row/column offset.
#include <Eigen/SparseCore>
#include <vector>

namespace nsspice::solvers {

using Triplets = std::vector<Eigen::Triplet<double, int>>;

// Appends s·a with its rows shifted by row0 and its columns by col0 (s = 0 keeps a's pattern
// as explicit zeros, so that every matrix built on it shares one sparsity pattern).
template <typename Sparse>
void append_scaled(Triplets& t, const Sparse& a, int row0, int col0, double s) {
  for (int col = 0; col < a.outerSize(); ++col)
    for (typename Sparse::InnerIterator it(a, col); it; ++it)
      t.emplace_back(row0 + static_cast<int>(it.row()), col0 + col, s * it.value());
}

}  // namespace nsspice::solvers
