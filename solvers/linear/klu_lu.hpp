// Thin RAII wrapper around SuiteSparse KLU (sparse LU for circuit matrices).
//
// Equations: for a square sparse A (compressed column storage) KLU computes
//   P R A Q = L U        (R: row scaling, P/Q: BTF + AMD or nested-dissection ordering and
//                         partial pivoting)
// and solves A x = b by x = Q U^-1 L^-1 P R b.  klu_refactor recomputes L, U for new
// values of A with the *same* P and Q (no pivoting), which is cheap but may be
// inaccurate when the new values would need different pivots; refactor() then falls back
// to a fresh factor().
//
// Reference: T. A. Davis, E. Palamadai Natarajan, "Algorithm 907: KLU, a direct sparse
// solver for circuit simulation problems", ACM TOMS 37(3), 2010.
//
// The KLU C header is deliberately not included here (pimpl): only klu_lu.cpp sees it.
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <limits>
#include <memory>

#include "solvers/status.hpp"

namespace nsspice::solvers {

// Column-major, int-indexed sparse matrix. Inputs to KLU must be compressed
// (a.isCompressed()); uncompressed or non-square inputs are rejected with kError.
using SparseMatrix = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;

enum class LuStatus { kOk, kSingular, kNotAnalyzed, kPatternMismatch, kError };

// LuStatus in the one vocabulary of solvers/status.hpp: kOk → kSolved; kSingular, kError →
// kNumericalFailure; kNotAnalyzed, kPatternMismatch (a matrix that does not fit the analysis)
// → kInvalidInput.
Status to_status(LuStatus status);

// A matrix whose rcond estimate is below this value is treated as numerically singular. The
// estimate is KLU's min|U_kk| / max|U_kk| with the columns equilibrated as well as the rows:
// P R A Q C = L (U C) for the diagonal C that scales each column of R A to a largest entry of 1,
// with the same L and pivots (threshold partial pivoting compares entries within one column, so
// it does not see C), so U C's diagonal is U_kk·C_{Q(k)}, no refactorization needed. KLU's own
// estimate changes with the units of the unknowns: a complementarity pair on a segment at
// picoamperes (D_jj = 1/g of 10 GΩ, a λ column of 1e-10 against node columns of 1e6 at a
// femtosecond step) gave 2e-17 on a regular mode matrix; equilibrated it is 1e-11 (a VDMOS
// inverter whose body diodes sit behind RB = 10 MΩ, tests in klu_lu_test.cpp).
inline constexpr double kKluSingularRcond = 1e-14;

class KluFactor;
struct FactorModel;  // factor_cache.hpp

// Matrices of at least this order are ordered by nested dissection (METIS) without BTF, smaller
// ones by KLU's default BTF + AMD (nested_dissection.hpp says why).
inline constexpr int kNestedDissectionMin = 256;

// Symbolic analysis (klu_analyze: BTF + AMD ordering; nested dissection from
// kNestedDissectionMin unknowns on), done once per sparsity pattern.
// The pattern (outer/inner index arrays) is stored so that factor()/refactor() can reject
// matrices with a different pattern (kPatternMismatch).
class KluSymbolic {
 public:
  KluSymbolic();
  ~KluSymbolic();
  KluSymbolic(KluSymbolic&& other) noexcept;
  KluSymbolic& operator=(KluSymbolic&& other) noexcept;
  KluSymbolic(const KluSymbolic&) = delete;
  KluSymbolic& operator=(const KluSymbolic&) = delete;

  // Analyzes the pattern of `a` (values are ignored). Returns kError for a non-square or
  // uncompressed matrix or a KLU failure, kSingular for a structurally singular pattern
  // (structural rank < n, no values can make it nonsingular). On anything but kOk the
  // object is left not analyzed.
  LuStatus analyze(const SparseMatrix& a);
  bool analyzed() const;
  int rows() const;  // n, or 0 when not analyzed
  // Another handle on this analysis, with a FactorModel of its own (fresh): the analysis is
  // read-only once made (klu_factor, klu_refactor and klu_solve only read it), so the handles of
  // several threads may factor with it at once while each thread's model stays its own (the runs
  // of a sweep on one sparsity pattern: one analysis). Not analyzed when this one is not.
  KluSymbolic share() const;
  // `a` has the analyzed pattern (factor() accepts it).
  bool fits(const SparseMatrix& a) const;
  // The model factorization shared by every FactorCache that factors with this analysis, and
  // its cost measures (factor_cache.hpp). Mutable state of the analysis object: one thread.
  FactorModel& model() const;

 private:
  friend class KluFactor;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One numeric factorization. Each object owns its own klu_common, so distinct objects
// can be used concurrently from different threads; a single object must not be used from
// two threads at once (solve() updates the object's klu_common statistics).
// The factor shares ownership of the symbolic analysis it was computed with, so it stays
// usable even if the KluSymbolic is destroyed or re-analyzed afterwards.
class KluFactor {
 public:
  KluFactor();
  ~KluFactor();
  KluFactor(KluFactor&& other) noexcept;
  KluFactor& operator=(KluFactor&& other) noexcept;
  KluFactor(const KluFactor&) = delete;
  KluFactor& operator=(const KluFactor&) = delete;

  // Fresh numeric factorization with partial pivoting (klu_factor). kSingular when KLU
  // finds a zero pivot or rcond() < kKluSingularRcond; the factor is then invalid.
  LuStatus factor(const KluSymbolic& sym, const SparseMatrix& a);

  // Same pattern, new values: klu_refactor with the previous pivot order. Falls back to
  // factor() when there is no valid factorization of this symbolic yet, when klu_refactor
  // hits a zero pivot, or when the result looks inaccurate:
  //   rcond < max(kKluSingularRcond, kRefactorRcondRatio * rcond_fresh), or
  //   rgrowth < kRefactorGrowthRatio * rgrowth_fresh,
  // where *_fresh are the estimates of the last fresh factorization (rgrowth: KLU
  // reciprocal pivot growth, small when stale pivots amplified the entries).
  LuStatus refactor(const KluSymbolic& sym, const SparseMatrix& a);

  // Same pattern, new values, starting from a copy of `model`'s factorization (the same
  // analysis): klu_refactor with the model's pivot order on the copy, without a new
  // factorization's pivot search and allocations; accepted under the same accuracy tests as
  // refactor() (against the model's fresh estimates), else a fresh factor(). A model of another
  // analysis or an invalid one gives factor().
  // When this factor holds the model's pivot structure already (same_structure: a recycled
  // refactored copy of the same model, or the fresh factorization the model was copied from),
  // klu_refactor runs on it in place: no copy, no allocation (in_place_starts()), the same bits
  // as a new copy (klu_refactor reads only the structure and overwrites every value).
  LuStatus refactor_like(const KluFactor& model, const KluSymbolic& sym, const SparseMatrix& a);

  // Becomes a copy of `other` (its analysis, pivot order and values); false if out of memory
  // (then invalid).
  bool copy_from(const KluFactor& other);

  bool valid() const;

  // x = A^-1 b in place. Precondition: valid() and rhs size == n (throws
  // an InvariantError, solvers/check.hpp, otherwise).
  void solve(Eigen::Ref<Eigen::VectorXd> rhs_in_out) const;
  // Several right-hand sides (columns), in place. Same preconditions.
  void solve_many(Eigen::Ref<Eigen::MatrixXd> rhs_in_out) const;

  double rcond() const;          // klu_rcond of the current factorization (0 if invalid)
  double bytes() const;          // memory held by the numeric factorization (KLU's memusage)
  int factorizations() const;    // fresh factorizations (klu_factor) since construction
  int refactorizations() const;  // successful klu_refactor reuses since construction
  int in_place_starts() const;   // refactor_like calls that found the model's structure held
  // Both hold a factorization of one analysis with the same pivot structure (one fresh
  // factorization's, kept through copies and refactorizations).
  bool same_structure(const KluFactor& other) const;
  // Holds a factorization of `sym`'s analysis (refactor_like can start from it).
  bool of(const KluSymbolic& sym) const;
  // Size of the factorization held (0 if invalid): the entries of L and U (KLU's lnz + unz, the
  // diagonals included, plus the off-diagonal blocks of a BTF ordering), and the flops of its
  // numeric factorization (klu_flops). Pure functions of the matrix and the pivot order: the
  // factor cache's cost model (factor_cache.hpp) is made of them.
  double lu_entries() const;
  double flops() const;

  static constexpr double kRefactorRcondRatio = 1e3 * std::numeric_limits<double>::epsilon();
  static constexpr double kRefactorGrowthRatio = 1e-8;

 private:
  // Validates the analysis and pattern (releasing the numeric object if they are wrong).
  LuStatus check_inputs(const KluSymbolic& sym, const SparseMatrix& a);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nsspice::solvers
