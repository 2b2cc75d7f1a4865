// KLU wrapper implementation. Equations and reference: see klu_lu.hpp
// (P R A Q = L U; Davis & Palamadai Natarajan, ACM TOMS 37(3), 2010).
#include "solvers/linear/klu_lu.hpp"

#include <klu.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "solvers/check.hpp"
#include "solvers/linear/factor_cache.hpp"
#include "solvers/linear/klu_copy.hpp"
#include "solvers/linear/nested_dissection.hpp"

namespace nsspice::solvers {
namespace {

klu_common make_common() {
  klu_common common;
  klu_defaults(&common);
  common.halt_if_singular = 1;
  return common;
}

// Owns a klu_symbolic; shared between a KluSymbolic and the factors computed from it.
struct SymbolicHandle {
  klu_symbolic* symbolic = nullptr;
  std::vector<int> outer;  // column pointers of the analyzed pattern
  std::vector<int> inner;  // row indices of the analyzed pattern
  // Fresh factorizations computed with this analysis, by every handle sharing it (threads: atomic).
  // The count numbers their pivot structures (KluFactor::Impl::structure).
  std::atomic<long> structures{0};
  SymbolicHandle() = default;
  SymbolicHandle(const SymbolicHandle&) = delete;
  SymbolicHandle& operator=(const SymbolicHandle&) = delete;
  ~SymbolicHandle() {
    if (symbolic != nullptr) {
      klu_common common = make_common();
      klu_free_symbolic(&symbolic, &common);
    }
  }
};

bool well_formed(const SparseMatrix& a) { return a.isCompressed() && a.rows() == a.cols(); }

bool same_pattern(const SymbolicHandle& h, const SparseMatrix& a) {
  const auto n = static_cast<std::size_t>(a.cols());
  if (!well_formed(a) || h.outer.size() != n + 1) return false;
  if (!std::equal(h.outer.begin(), h.outer.end(), a.outerIndexPtr())) return false;
  return std::equal(h.inner.begin(), h.inner.end(), a.innerIndexPtr()) &&
         h.inner.size() == static_cast<std::size_t>(a.nonZeros());
}

// KLU's C API takes non-const pointers for inputs it does not modify.
int* mutable_outer(const SparseMatrix& a) { return const_cast<int*>(a.outerIndexPtr()); }
int* mutable_inner(const SparseMatrix& a) { return const_cast<int*>(a.innerIndexPtr()); }
double* mutable_values(const SparseMatrix& a) { return const_cast<double*>(a.valuePtr()); }

}  // namespace

// ---------------------------------------------------------------------------------------
// KluSymbolic

struct KluSymbolic::Impl {
  std::shared_ptr<SymbolicHandle> handle;
  int n = 0;
  std::unique_ptr<FactorModel> model = std::make_unique<FactorModel>();
};

KluSymbolic::KluSymbolic() : impl_(std::make_unique<Impl>()) {}
KluSymbolic::~KluSymbolic() = default;
KluSymbolic::KluSymbolic(KluSymbolic&& other) noexcept = default;
KluSymbolic& KluSymbolic::operator=(KluSymbolic&& other) noexcept = default;

LuStatus KluSymbolic::analyze(const SparseMatrix& a) {
  if (!impl_) impl_ = std::make_unique<Impl>();
  impl_->handle.reset();
  impl_->n = 0;
  impl_->model = std::make_unique<FactorModel>();  // a new analysis: no model yet
  if (!well_formed(a)) return LuStatus::kError;
  auto handle = std::make_shared<SymbolicHandle>();
  const int n = static_cast<int>(a.rows());
  if (n > 0) {
    klu_common common = make_common();
    handle->symbolic = klu_analyze(n, mutable_outer(a), mutable_inner(a), &common);
    if (handle->symbolic == nullptr || common.status < KLU_OK) return LuStatus::kError;
    if (common.structural_rank >= 0 && common.structural_rank < n) return LuStatus::kSingular;
    // Large: nested dissection instead of BTF + AMD (shorter elimination tree, faster solves;
    // nested_dissection.hpp). The analysis above still served to find structural singularity.
    if (n >= kNestedDissectionMin) {
      if (const auto order = nested_dissection(a)) {
        klu_common given = make_common();
        given.btf = 0;
        std::vector<int> p = *order;
        klu_symbolic* nd =
            klu_analyze_given(n, mutable_outer(a), mutable_inner(a), p.data(), p.data(), &given);
        if (nd != nullptr && given.status >= KLU_OK) {
          klu_free_symbolic(&handle->symbolic, &common);
          handle->symbolic = nd;
        } else if (nd != nullptr) {
          klu_free_symbolic(&nd, &given);
        }
      }
    }
  }
  handle->outer.assign(a.outerIndexPtr(), a.outerIndexPtr() + n + 1);
  handle->inner.assign(a.innerIndexPtr(), a.innerIndexPtr() + a.nonZeros());
  impl_->handle = std::move(handle);
  impl_->n = n;
  return LuStatus::kOk;
}

bool KluSymbolic::analyzed() const { return impl_ && impl_->handle != nullptr; }
KluSymbolic KluSymbolic::share() const {
  KluSymbolic out;
  if (analyzed()) {
    out.impl_->handle = impl_->handle;
    out.impl_->n = impl_->n;
  }
  return out;
}
bool KluSymbolic::fits(const SparseMatrix& a) const {
  return analyzed() && same_pattern(*impl_->handle, a);
}
FactorModel& KluSymbolic::model() const {
  NSSPICE_CHECK(impl_ != nullptr, "KluSymbolic::model: moved-from object");
  return *impl_->model;
}
int KluSymbolic::rows() const { return analyzed() ? impl_->n : 0; }

// ---------------------------------------------------------------------------------------
// KluFactor

struct KluFactor::Impl {
  klu_common common = make_common();
  std::shared_ptr<SymbolicHandle> symbolic;  // analysis the numeric object belongs to
  klu_numeric* numeric = nullptr;            // null for the trivial n = 0 factorization
  bool ready = false;                        // a valid factorization is held
  int n = 0;
  double rcond = 0;
  double rcond_fresh = 0;
  double rgrowth_fresh = 0;
  // klu_flops of the pivot order held: computed on first use (−1: not yet), O(|L| + |U|).
  double flops = -1;
  // Identity of the pivot structure held (Pnum, Pinv, Lip, Uip, Llen, Ulen, Offp, Offi, the
  // indices in LUbx): the number of the fresh factorization it comes from (SymbolicHandle::
  // structures; 0: none). Copies and refactorizations keep it: two factors of one analysis with
  // the same number have the same structure, and klu_refactor needs nothing else.
  long structure = 0;
  int factorizations = 0;
  int refactorizations = 0;
  int in_place = 0;  // refactor_like calls that found the model's structure held (no copy)

  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl() { release(); }

  void release() {
    if (numeric != nullptr) klu_free_numeric(&numeric, &common);
    numeric = nullptr;
    symbolic.reset();
    ready = false;
    n = 0;
    rcond = 0;
    structure = 0;
  }

  // The analysis, pivot structure and fresh estimates of `from` (whose numeric object this one
  // holds a copy of, or holds already).
  void same_pivots_as(const Impl& from) {
    symbolic = from.symbolic;
    n = from.n;
    structure = from.structure;
    rcond_fresh = from.rcond_fresh;
    rgrowth_fresh = from.rgrowth_fresh;
    flops = from.flops;
  }

  // Current rcond estimate (0 on failure): min/max of |U_kk|·C_{Q(k)}, C_j = 1/max_i |(R A)_ij|
  // (klu_lu.hpp, kKluSingularRcond).
  double compute_rcond(const SparseMatrix& a) {
    if (klu_rcond(symbolic->symbolic, numeric, &common) == 0 || n == 0) return 0;
    if (common.rcond == 0) return 0;
    column_max.assign(static_cast<size_t>(n), 0.0);
    // After factoring, KLU holds Rs in pivotal order: row r's scale is Rs[Pinv[r]].
    const double* rs = numeric->Rs;
    const int* pinv = numeric->Pinv;
    for (int j = 0; j < n; ++j)
      for (SparseMatrix::InnerIterator it(a, j); it; ++it) {
        const double v = std::abs(it.value()) / (rs != nullptr ? rs[pinv[it.row()]] : 1.0);
        column_max[static_cast<size_t>(j)] = std::max(column_max[static_cast<size_t>(j)], v);
      }
    const auto* udiag = static_cast<const double*>(numeric->Udiag);
    const int* q = symbolic->symbolic->Q;
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    for (int k = 0; k < n; ++k) {
      const double c = column_max[static_cast<size_t>(q != nullptr ? q[k] : k)];
      if (!(c > 0)) return 0;
      const double u = std::abs(udiag[k]) / c;
      lo = std::min(lo, u);
      hi = std::max(hi, u);
    }
    return hi > 0 ? lo / hi : 0.0;
  }
  std::vector<double> column_max;  // scratch of compute_rcond

  double compute_rgrowth(const SparseMatrix& a) {
    if (klu_rgrowth(mutable_outer(a), mutable_inner(a), mutable_values(a), symbolic->symbolic,
                    numeric, &common) == 0) {
      return 0;
    }
    return common.rgrowth;
  }

  LuStatus fresh(const std::shared_ptr<SymbolicHandle>& sym, int rows, const SparseMatrix& a) {
    release();
    ++factorizations;
    if (rows == 0) {  // nothing to factor; KLU rejects n = 0
      symbolic = sym;
      ready = true;
      rcond = rcond_fresh = 1.0;
      return LuStatus::kOk;
    }
    numeric =
        klu_factor(mutable_outer(a), mutable_inner(a), mutable_values(a), sym->symbolic, &common);
    if (numeric == nullptr) {
      return common.status == KLU_SINGULAR ? LuStatus::kSingular : LuStatus::kError;
    }
    symbolic = sym;
    n = rows;
    rcond = compute_rcond(a);
    if (!(rcond >= kKluSingularRcond)) {  // also catches NaN
      release();
      return LuStatus::kSingular;
    }
    ready = true;
    rcond_fresh = rcond;
    rgrowth_fresh = compute_rgrowth(a);
    flops = -1;
    structure = sym->structures.fetch_add(1) + 1;
    return LuStatus::kOk;
  }

  // klu_refactor with the old pivot order; true if the result is accurate enough to keep.
  bool try_refactor(const SparseMatrix& a) {
    if (klu_refactor(mutable_outer(a), mutable_inner(a), mutable_values(a), symbolic->symbolic,
                     numeric, &common) == 0) {
      return false;
    }
    const double rc = compute_rcond(a);
    const double rcond_floor = std::max(kKluSingularRcond, kRefactorRcondRatio * rcond_fresh);
    if (!(rc >= rcond_floor)) return false;
    if (!(compute_rgrowth(a) >= kRefactorGrowthRatio * rgrowth_fresh)) return false;
    rcond = rc;
    return true;
  }
};

KluFactor::KluFactor() : impl_(std::make_unique<Impl>()) {}
KluFactor::~KluFactor() = default;
KluFactor::KluFactor(KluFactor&& other) noexcept = default;
KluFactor& KluFactor::operator=(KluFactor&& other) noexcept = default;

LuStatus KluFactor::check_inputs(const KluSymbolic& sym, const SparseMatrix& a) {
  if (!impl_) impl_ = std::make_unique<Impl>();
  LuStatus status = LuStatus::kOk;
  if (!sym.analyzed()) {
    status = LuStatus::kNotAnalyzed;
  } else if (!same_pattern(*sym.impl_->handle, a)) {
    status = LuStatus::kPatternMismatch;
  }
  if (status != LuStatus::kOk) impl_->release();
  return status;
}

LuStatus KluFactor::factor(const KluSymbolic& sym, const SparseMatrix& a) {
  if (const LuStatus s = check_inputs(sym, a); s != LuStatus::kOk) return s;
  const auto& handle = sym.impl_->handle;
  // Copy the shared_ptr: release() inside fresh() must not drop the last reference.
  const std::shared_ptr<SymbolicHandle> keep = handle;
  return impl_->fresh(keep, sym.impl_->n, a);
}

LuStatus KluFactor::refactor(const KluSymbolic& sym, const SparseMatrix& a) {
  if (const LuStatus s = check_inputs(sym, a); s != LuStatus::kOk) return s;
  const auto& handle = sym.impl_->handle;
  if (impl_->numeric == nullptr || impl_->symbolic != handle) return factor(sym, a);  // incl. n = 0
  if (impl_->try_refactor(a)) {
    ++impl_->refactorizations;
    return LuStatus::kOk;
  }
  return factor(sym, a);
}

LuStatus KluFactor::refactor_like(const KluFactor& model, const KluSymbolic& sym,
                                  const SparseMatrix& a) {
  if (const LuStatus s = check_inputs(sym, a); s != LuStatus::kOk) return s;
  const auto& handle = sym.impl_->handle;
  const Impl& from = *model.impl_;
  if (&model == this) return refactor(sym, a);
  if (!model.valid() || from.numeric == nullptr || from.symbolic != handle) return factor(sym, a);
  Impl& to = *impl_;
  // The model's pivot structure held already (a recycled copy of the same model): klu_refactor
  // overwrites every value, so the result is that of a new copy, without the copy.
  if (to.numeric != nullptr && to.symbolic == handle && to.structure == from.structure) {
    ++to.in_place;
  } else {
    to.release();
    to.numeric = copy_klu_numeric(*from.numeric, &to.common);
    if (to.numeric == nullptr) return factor(sym, a);
  }
  to.ready = false;
  to.same_pivots_as(from);
  if (!to.try_refactor(a)) return factor(sym, a);
  to.ready = true;
  ++to.refactorizations;
  return LuStatus::kOk;
}

bool KluFactor::copy_from(const KluFactor& other) {
  if (&other == this) return valid();
  if (!impl_) impl_ = std::make_unique<Impl>();
  impl_->release();
  const Impl& from = *other.impl_;
  if (!other.valid()) return false;
  if (from.numeric != nullptr) {
    impl_->numeric = copy_klu_numeric(*from.numeric, &impl_->common);
    if (impl_->numeric == nullptr) return false;
  }
  impl_->same_pivots_as(from);
  impl_->rcond = from.rcond;
  impl_->ready = true;
  return true;
}

Status to_status(LuStatus status) {
  switch (status) {
    case LuStatus::kOk:
      return Status::kSolved;
    case LuStatus::kSingular:
    case LuStatus::kError:
      return Status::kNumericalFailure;
    case LuStatus::kNotAnalyzed:
    case LuStatus::kPatternMismatch:
      return Status::kInvalidInput;
  }
  return Status::kNumericalFailure;
}

bool KluFactor::valid() const { return impl_ && impl_->ready; }

void KluFactor::solve(Eigen::Ref<Eigen::VectorXd> rhs_in_out) const {
  NSSPICE_CHECK(valid() && rhs_in_out.size() == impl_->n,
                "KluFactor::solve: invalid factor or size mismatch");
  if (impl_->n == 0) return;
  klu_solve(impl_->symbolic->symbolic, impl_->numeric, impl_->n, 1, rhs_in_out.data(),
            &impl_->common);
}

void KluFactor::solve_many(Eigen::Ref<Eigen::MatrixXd> rhs_in_out) const {
  NSSPICE_CHECK(valid() && rhs_in_out.rows() == impl_->n,
                "KluFactor::solve_many: invalid factor or size mismatch");
  if (impl_->n == 0 || rhs_in_out.cols() == 0) return;
  const int ldim = static_cast<int>(rhs_in_out.outerStride());
  klu_solve(impl_->symbolic->symbolic, impl_->numeric, ldim, static_cast<int>(rhs_in_out.cols()),
            rhs_in_out.data(), &impl_->common);
}

double KluFactor::rcond() const { return valid() ? impl_->rcond : 0.0; }
double KluFactor::bytes() const {
  return valid() ? static_cast<double>(impl_->common.memusage) : 0;
}
double KluFactor::lu_entries() const {
  if (!valid() || impl_->numeric == nullptr) return 0;
  const klu_numeric& num = *impl_->numeric;
  return static_cast<double>(num.lnz) + static_cast<double>(num.unz) +
         static_cast<double>(num.nzoff);
}
double KluFactor::flops() const {
  if (!valid() || impl_->numeric == nullptr) return 0.0;
  if (impl_->flops < 0)
    impl_->flops = klu_flops(impl_->symbolic->symbolic, impl_->numeric, &impl_->common) != 0
                       ? impl_->common.flops
                       : 0.0;
  return impl_->flops;
}
int KluFactor::factorizations() const { return impl_ ? impl_->factorizations : 0; }
int KluFactor::refactorizations() const { return impl_ ? impl_->refactorizations : 0; }
int KluFactor::in_place_starts() const { return impl_ ? impl_->in_place : 0; }
bool KluFactor::same_structure(const KluFactor& other) const {
  return valid() && other.valid() && impl_->numeric != nullptr &&
         impl_->symbolic == other.impl_->symbolic && impl_->structure == other.impl_->structure;
}
bool KluFactor::of(const KluSymbolic& sym) const {
  return impl_ && impl_->numeric != nullptr && sym.analyzed() &&
         impl_->symbolic == sym.impl_->handle;
}

}  // namespace nsspice::solvers
