#pragma once
// LRU cache of sparse LU factorizations keyed by mode (docs/formulation.md §3.2).
//
// Every mode σ (set of conducting pairs) gives a matrix K(σ) with one fixed sparsity pattern,
// so one symbolic analysis serves all of them; each cached entry is a numeric factorization.
// Memory: besides the entry count, the bytes of the cached factors are bounded by a budget
// (kFactorCacheBytes by default): least recently used entries are dropped until the rest fits
// (the one just computed always stays). Large circuits thus keep a few factors, small ones many.
// Several caches may share one budget (FactorBudget: the mode systems of all the step sizes of
// one run): the least recently used entry among all of them is dropped first, so that the run's
// factors never hold more than the one budget, however many step sizes it meets.
// Memory reuse (docs/solvers.md §8, "Memory reuse"): a miss answered from the model refactors
// in place an entry that holds the model's pivot structure already (KluFactor::refactor_like: no
// copy, no allocation): a recycled entry, or the spare — the factor of the entry the budget dropped
// last (or of a cache destroyed), kept (at most kMaxSpares) for the next new entry that uses the
// model. A miss factored afresh frees the spare first (KLU allocates its own arrays), so the
// factors never hold more than the budget plus one factor, the bound that the entry computed
// before enforce() has always had. Which entries are cached, and every bit of every factor, are
// as without the spare.
//
// A miss costs one of (docs/solvers.md §8, "Factor reuse"):
//   * fresh:  a new KLU factorization (pivot search, allocation), time t_f;
//   * model:  a copy of the model factorization refactored with the new values
//             (KluFactor::refactor_like: KLU's refactorization on the model's pivot order), time
//             t_m, falling back to a fresh one when the model's pivots do not suit the new values
//             (a fraction p of the attempts);
//   * recycle: when the cache is full, the least recently used entry refactored in place
//             (its own pivot order) — used when no model is worth it.
// The model and the measures belong to the analysis (KluSymbolic::model()): every cache that
// factors with it shares them — the mode systems of all the step sizes of a θ-stepper, so that
// the first factorization for a new step size can be a refactorization too.
// Cost model, deterministic: a pure function of the matrices, never of a clock (a choice made from
// measured times would make the pivot order, hence the rounding of every result, depend on the
// machine's load). Costs are in flop equivalents, from KLU's own counts of the factorizations
// (KluFactor::flops, KluFactor::lu_entries):
//   fresh:  c_f = F + κ_f |LU| + κ_a nnz(A)   (mean over this analysis's fresh factorizations:
//                                               the flops, the depth-first searches and pivot
//                                               choices per entry of L and U, the pass over A),
//   model:  c_m = F_model + (κ_r + κ_c) |LU_model| + κ_a nnz(A)   (refactorization on the
//                                               model's pattern, the copy of its arrays),
// and, over the attempts since the model was adopted (decaying by kModelMemory per attempt, so
// that they follow the circuit's phases), the fraction p of them that fell back to a fresh
// factorization. The model is used when c_m + p·c_f < kModelGain·c_f; the first kModelTrials
// attempts after a new model measure p, and every kModelProbe-th miss tries it anyway (a start-up
// transient that made it fail must not rule it out for the rest of the run). The weights κ were
// calibrated once on this project's machine (docs/solvers.md §8) and are constants. Matrices of
// fewer than kModelMinNonzeros nonzeros never use the model. The model is
// the factorization of highest `score` computed fresh (ModeMlcp passes the number of pairs on: a
// pivot order computed with a pair conducting serves the mode where it blocks, not the reverse,
// so the mode with most pairs on is the best model), or offered by offer_model().
#include <list>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "solvers/linear/klu_lu.hpp"

namespace nsspice::solvers {

// Below this many nonzeros a matrix never uses the model (factor_cache.cpp).
inline constexpr long kModelMinNonzeros = 4096;

// Default memory budget of one FactorCache, or of the caches sharing one FactorBudget [bytes].
inline constexpr double kFactorCacheBytes = 256.0 * 1024 * 1024;

class FactorCache;

// One byte budget shared by several FactorCaches, with one least-recently-used order across them
// (header). Must outlive the caches registered with it; not copyable.
class FactorBudget {
 public:
  explicit FactorBudget(double bytes = kFactorCacheBytes) : limit_(bytes) {}
  FactorBudget(const FactorBudget&) = delete;
  FactorBudget& operator=(const FactorBudget&) = delete;
  double limit() const { return limit_; }
  double bytes() const { return bytes_; }  // held now by the factors of every cache
  double peak() const { return peak_; }    // the most held at once, the spare included
  long evictions() const { return evictions_; }
  double spare_bytes() const { return spare_bytes_; }  // held by the spare, beside bytes()
  int spares() const { return static_cast<int>(spares_.size()); }

  static constexpr int kMaxSpares = 1;

 private:
  friend class FactorCache;
  long tick() { return ++clock_; }
  void add(double bytes);
  // Drops least recently used entries of the registered caches until the total fits; the front
  // entry of `keep` (the one just computed) stays.
  void enforce(const FactorCache& keep);
  // Keeps `f` (the factor of an entry just dropped) as a spare, in place of the oldest one when
  // there are kMaxSpares already.
  void keep_spare(KluFactor&& f);
  // Moves a spare of `symbolic`'s analysis into `to`; false if there is none.
  bool take_spare(const KluSymbolic& symbolic, KluFactor& to);
  void free_spares();
  void note_peak();
  double limit_;
  double bytes_ = 0, peak_ = 0;
  double spare_bytes_ = 0;
  std::vector<KluFactor> spares_;
  long clock_ = 0;
  long evictions_ = 0;
  std::vector<FactorCache*> caches_;
};

// The model factorization of one analysis and the counts of the cost model (header).
struct FactorModel {
  static constexpr double kModelGain = 0.8;
  static constexpr int kModelTrials = 2;
  static constexpr double kModelMemory = 0.9;
  static constexpr int kModelProbe = 16;
  // Weights of the cost model [flop equivalents per entry] (header; docs/solvers.md §8), fitted
  // to the best of 15 timings on this project's 2-core machine of the clamp chain's mode matrices
  // (2·10³–6·10⁴ unknowns; per entry of L and U: fresh ≈ 7.5, refactorization ≈ 0.75, copy
  // ≈ 0.25 times the time of one flop of the factorization). Constants: never re-measured.
  static constexpr double kFreshPerEntry = 7.5;
  static constexpr double kRefactorPerEntry = 0.75;
  static constexpr double kCopyPerEntry = 0.25;
  static constexpr double kPerNonzero = 1.0;

  KluFactor factor;
  int score = -1;         // of the mode it factors (−1: no model)
  double fresh_cost = 0;  // total predicted cost of the misses answered by a fresh factorization
  long fresh_count = 0;
  // Decaying counts of the model attempts since it was adopted: all and failed; attempts_total
  // counts them all.
  double attempts = 0, failures = 0;
  long attempts_total = 0;
  long misses_since_attempt = 0;
  bool offered = false;  // offer_model() was called once for this analysis

  // c_f of a fresh factorization `f` of a matrix of `nonzeros` entries (header).
  static double cost_fresh(const KluFactor& f, double nonzeros);
  // c_m: a copy of the model refactored for a matrix of `nonzeros` entries.
  double cost_model(double nonzeros) const;
  // Mean c_f of this analysis's fresh factorizations (0 before any).
  double mean_fresh() const;
  // The cost model of the header for a matrix of `nonzeros` entries: a copy of the model is the
  // cheaper way (or it is time to probe it); counts the miss.
  bool worth(double nonzeros);
  // Records an attempt: `ok` (the refactorization held).
  void record(bool ok);
  // Copies `fresh` as the model of score `new_score`; the attempt counts start over.
  void adopt(const KluFactor& fresh, int new_score);
  // The same, taking `fresh` itself (valid) instead of a copy: no new memory.
  void adopt(KluFactor&& fresh, int new_score);
  void restart(int new_score);  // score := new_score, the attempt counts start over
};

struct FactorCacheStats {
  long hits = 0;
  long misses = 0;
  long singular = 0;        // requests for a singular mode (computed once, then remembered)
  long model_attempts = 0;  // misses answered by refactoring a copy of the model
  long model_failures = 0;  // among them, those that needed a fresh factorization after all
  // Among the attempts, those refactored in place: the entry (recycled, or the budget's spare)
  // held the model's pivot structure already, no copy (KluFactor::refactor_like).
  long model_in_place = 0;
  long spares_used = 0;  // misses whose new entry took the budget's spare (FactorBudget)
};

class FactorCache {
 public:
  // A cache with a budget of its own, or sharing `shared` (which must outlive it; nullptr: a
  // budget of its own of kFactorCacheBytes).
  explicit FactorCache(int capacity, double byte_budget = kFactorCacheBytes);
  FactorCache(int capacity, FactorBudget* shared);
  ~FactorCache();
  FactorCache(const FactorCache&) = delete;
  FactorCache& operator=(const FactorCache&) = delete;

  // The factorization of `a` (the matrix of mode `key`), computing it on a miss (header).
  // Returns nullptr when `a` is singular (the failure is not cached). `score` ranks fresh
  // factorizations as models (higher: better).
  const KluFactor* get(const std::string& key, const KluSymbolic& symbolic, const SparseMatrix& a,
                       int score = 0);
  // Factors `a` (a mode chosen as a model: ModeMlcp's template) and makes it the analysis's model
  // if `score` beats the current one; once per analysis (FactorModel::offered), only for a matrix
  // of at least kModelMinNonzeros entries and after a first fresh factorization. Counted as a
  // factorization.
  void offer_model(const KluSymbolic& symbolic, const SparseMatrix& a, int score);
  // Looks up without computing.
  const KluFactor* find(const std::string& key);
  // `key` was found singular before (get() returns nullptr for it without reading the matrix).
  bool known_singular(const std::string& key) const { return singular_keys_.count(key) != 0; }
  // `f` if it is still the most recently used entry (the one returned last; the budget shared
  // with other caches may have dropped it since): counted as a hit. Otherwise nullptr.
  const KluFactor* front_hit(const KluFactor* f);
  // Drops every entry (the statistics stay); with `spare`, the least recently used entry's factor
  // goes to the budget's spare, as when the cache is destroyed.
  void clear(bool spare = false);
  const FactorCacheStats& stats() const { return stats_; }
  long factorizations() const { return factorizations_; }
  long refactorizations() const { return refactorizations_; }
  int size() const { return static_cast<int>(entries_.size()); }
  double bytes() const { return bytes_; }  // held by the cached factors (the model apart)
  const FactorBudget& budget() const { return *budget_; }

 private:
  friend class FactorBudget;
  struct Entry {
    std::string key;
    KluFactor factor;
    double bytes = 0;
    long used = 0;  // the budget's clock at the last use
  };
  using List = std::list<Entry>;
  // Computes the factor of `a` into `entry` by the cheapest predicted way; updates the measures.
  LuStatus compute(Entry& entry, const KluSymbolic& symbolic, const SparseMatrix& a, int score);
  // Drops the least recently used entry (its factor to the budget's spare).
  void drop_last();
  int capacity_;
  FactorBudget own_budget_;
  FactorBudget* budget_;
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
