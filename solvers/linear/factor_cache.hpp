#pragma once
// LRU cache of sparse LU factorizations keyed by mode (docs/formulation.md §3.2).
//
// Every mode σ (set of conducting pairs) gives a matrix K(σ) with one fixed sparsity pattern,
// so one symbolic analysis serves all of them; each cached entry is a numeric factorization.
// On a miss the least recently used entry is recycled through a numeric refactorization
// (KLU falls back to a fresh factorization with pivoting when that is inaccurate).
// Memory: besides the entry count, the bytes of the cached factors are bounded by a budget
// (kFactorCacheBytes by default): least recently used entries are dropped until the rest fits
// (the one just computed always stays). Large circuits thus keep a few factors, small ones many.
#include <list>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "solvers/linear/klu_lu.hpp"

namespace nsspice::solvers {

// Default memory budget of one FactorCache [bytes].
inline constexpr double kFactorCacheBytes = 256.0 * 1024 * 1024;

struct FactorCacheStats {
  long hits = 0;
  long misses = 0;
  long singular = 0;  // requests for a singular mode (computed once, then remembered)
};

class FactorCache {
 public:
  explicit FactorCache(int capacity, double byte_budget = kFactorCacheBytes)
      : capacity_(capacity < 1 ? 1 : capacity), byte_budget_(byte_budget) {}

  // The factorization of `a` (the matrix of mode `key`), computing it on a miss.
  // Returns nullptr when `a` is singular (the failure is not cached).
  const KluFactor* get(const std::string& key, const KluSymbolic& symbolic, const SparseMatrix& a);
  // Looks up without computing.
  const KluFactor* find(const std::string& key);
  void clear() {
    bytes_ = 0;
    entries_.clear();
    index_.clear();
    singular_keys_.clear();
  }
  const FactorCacheStats& stats() const { return stats_; }
  void count_hit() { ++stats_.hits; }
  long factorizations() const { return factorizations_; }
  long refactorizations() const { return refactorizations_; }
  int size() const { return static_cast<int>(entries_.size()); }
  double bytes() const { return bytes_; }  // held by the cached factors

 private:
  struct Entry {
    std::string key;
    KluFactor factor;
    double bytes = 0;
  };
  using List = std::list<Entry>;
  int capacity_;
  double byte_budget_;
  double bytes_ = 0;
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
