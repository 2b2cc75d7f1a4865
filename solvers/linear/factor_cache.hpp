#pragma once
// LRU cache of sparse LU factorizations keyed by mode (docs/formulation.md §3.2).
//
// Every mode σ (set of conducting pairs) gives a matrix K(σ) with one fixed sparsity pattern,
// so one symbolic analysis serves all of them; each cached entry is a numeric factorization.
// On a miss the least recently used entry is recycled through a numeric refactorization
// (KLU falls back to a fresh factorization with pivoting when that is inaccurate).
#include <list>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "solvers/linear/klu_lu.hpp"

namespace nsspice::solvers {

struct FactorCacheStats {
  long hits = 0;
  long misses = 0;
  long singular = 0;  // requests for a singular mode (computed once, then remembered)
};

class FactorCache {
 public:
  explicit FactorCache(int capacity) : capacity_(capacity < 1 ? 1 : capacity) {}

  // The factorization of `a` (the matrix of mode `key`), computing it on a miss.
  // Returns nullptr when `a` is singular (the failure is not cached).
  const KluFactor* get(const std::string& key, const KluSymbolic& symbolic, const SparseMatrix& a);
  // Looks up without computing.
  const KluFactor* find(const std::string& key);
  void clear() {
    entries_.clear();
    index_.clear();
    singular_keys_.clear();
  }
  const FactorCacheStats& stats() const { return stats_; }
  void count_hit() { ++stats_.hits; }
  long factorizations() const { return factorizations_; }
  long refactorizations() const { return refactorizations_; }

 private:
  struct Entry {
    std::string key;
    KluFactor factor;
  };
  using List = std::list<Entry>;
  int capacity_;
  List entries_;  // most recently used first
  std::unordered_map<std::string, List::iterator> index_;
  // Modes whose matrix was singular (remembered so that they cost nothing the next time).
  static constexpr size_t kMaxSingularKeys = 4096;
  std::unordered_set<std::string> singular_keys_;
  FactorCacheStats stats_;
  long factorizations_ = 0;
  long refactorizations_ = 0;
};

}  // namespace nsspice::solvers
