#pragma once
// LRU cache of sparse LU factorizations keyed by mode (docs/formulation.md §3.2).
//
// Every mode σ (set of conducting pairs) gives a matrix K(σ) with one fixed sparsity pattern,
// so one symbolic analysis serves all of them; each cached entry is a numeric factorization.
// Memory: besides the entry count, the bytes of the cached factors are bounded by a budget
// (kFactorCacheBytes by default): least recently used entries are dropped until the rest fits
// (the one just computed always stays). Large circuits thus keep a few factors, small ones many.
//
// A miss costs one of (docs/solvers.md §8, "Factor reuse"):
//   * fresh:  a new KLU factorization (pivot search, allocation), time t_f;
//   * model:  a copy of the model factorization refactored with the new values
//             (KluFactor::refactor_like: KLU's refactorization on the model's pivot order, no
//             allocation pattern to discover), time t_m, falling back to a fresh one when the
//             model's pivots do not suit the new values (a fraction p of the attempts);
//   * recycle: when the cache is full, the least recently used entry refactored in place
//             (its own pivot order) — used when no model is worth it.
// Cost model, on measured times (the thread's CPU time, means over this cache's misses): the
// model is used when its predicted cost t_m + p·t_f is below kModelGain·t_f; the first kModelTrials
// attempts measure it; misses whose fresh factorization takes under kModelMinSeconds never use it
// (timer noise, and nothing to gain). The model is the fresh factorization of highest `score` seen
// (ModeMlcp passes the number of conducting pairs: a pivot order computed with a pair
// conducting serves the mode where it blocks, not the reverse, so the mode with most pairs on
// is the best model).
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
  long singular = 0;        // requests for a singular mode (computed once, then remembered)
  long model_attempts = 0;  // misses answered by refactoring a copy of the model
  long model_failures = 0;  // among them, those that needed a fresh factorization after all
  double fresh_seconds = 0, model_seconds = 0;  // total time of fresh / successful model misses
  long fresh_count = 0;                         // misses answered by a fresh factorization alone
};

class FactorCache {
 public:
  explicit FactorCache(int capacity, double byte_budget = kFactorCacheBytes)
      : capacity_(capacity < 1 ? 1 : capacity), byte_budget_(byte_budget) {}

  // The factorization of `a` (the matrix of mode `key`), computing it on a miss (header).
  // Returns nullptr when `a` is singular (the failure is not cached). `score` ranks fresh
  // factorizations as models (higher: better).
  const KluFactor* get(const std::string& key, const KluSymbolic& symbolic, const SparseMatrix& a,
                       int score = 0);
  // Looks up without computing.
  const KluFactor* find(const std::string& key);
  void clear() {
    bytes_ = 0;
    entries_.clear();
    index_.clear();
    singular_keys_.clear();
    model_ = KluFactor();
    model_score_ = -1;
  }
  const FactorCacheStats& stats() const { return stats_; }
  void count_hit() { ++stats_.hits; }
  long factorizations() const { return factorizations_; }
  long refactorizations() const { return refactorizations_; }
  int size() const { return static_cast<int>(entries_.size()); }
  double bytes() const { return bytes_; }  // held by the cached factors and the model

  // Cost model constants (header).
  static constexpr double kModelGain = 0.8;
  static constexpr int kModelTrials = 2;
  static constexpr double kModelMinSeconds = 50e-6;

 private:
  struct Entry {
    std::string key;
    KluFactor factor;
    double bytes = 0;
  };
  using List = std::list<Entry>;
  bool model_worth() const;
  // Computes the factor of `a` into `entry` by the cheapest predicted way; updates the measures.
  LuStatus compute(Entry& entry, const KluSymbolic& symbolic, const SparseMatrix& a, int score);
  int capacity_;
  double byte_budget_;
  double bytes_ = 0;
  List entries_;  // most recently used first
  std::unordered_map<std::string, List::iterator> index_;
  // Modes whose matrix was singular (remembered so that they cost nothing the next time).
  static constexpr size_t kMaxSingularKeys = 4096;
  std::unordered_set<std::string> singular_keys_;
  KluFactor model_;  // the factorization whose copies are refactored (header)
  int model_score_ = -1;
  double model_bytes_ = 0;
  FactorCacheStats stats_;
  long factorizations_ = 0;
  long refactorizations_ = 0;
};

}  // namespace nsspice::solvers
