#pragma once
// Nested-dissection ordering of a sparse matrix's symmetrized pattern, for the sparse LU.
//
// Why: the cost of a triangular solve is bounded below by the critical path of its elimination
// tree (each unknown waits for those it depends on), not only by nnz(L + U). Minimum-degree
// orderings (AMD, KLU's default) keep the fill low but, on long chains of sections (ladders,
// transmission lines, cascades), give a path-shaped tree: one unknown after the other,
// latency-bound. Nested dissection (George 1973) numbers a small vertex separator last and
// recurses on the two halves, so the tree has depth O(separator · log n) and the processor
// overlaps the independent halves. Computed by METIS_NodeND (Karypis & Kumar, SIAM J. Sci.
// Comput. 20(1), 1998) on the graph of A + Aᵀ without its diagonal.
#include <optional>
#include <vector>

#include "solvers/linear/klu_lu.hpp"

namespace nsspice::solvers {

// The ordering as a permutation p (position k holds the original index p[k]); nullopt when
// METIS fails. Deterministic (METIS's default seed).
std::optional<std::vector<int>> nested_dissection(const SparseMatrix& a);

}  // namespace nsspice::solvers
