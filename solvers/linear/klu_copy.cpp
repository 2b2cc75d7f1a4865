// Deep copy of a KLU numeric factorization; the layout it relies on is in klu_copy.hpp.
#include "solvers/linear/klu_copy.hpp"

#include <cstring>

namespace nsspice::solvers {
namespace {

// A klu_malloc'd copy of `count` items of `size` bytes (nullptr in, nullptr out).
template <typename T>
T* copy_array(const T* from, size_t count, klu_common* common, bool& ok) {
  if (from == nullptr || count == 0) return nullptr;
  void* to = klu_malloc(count, sizeof(T), common);
  if (to == nullptr) {
    ok = false;
    return nullptr;
  }
  std::memcpy(to, from, count * sizeof(T));
  return static_cast<T*>(to);
}

}  // namespace

klu_numeric* copy_klu_numeric(const klu_numeric& from, klu_common* common) {
  auto* to = static_cast<klu_numeric*>(klu_malloc(1, sizeof(klu_numeric), common));
  if (to == nullptr) return nullptr;
  *to = from;  // the scalars; every pointer is replaced below before anything can free it
  const auto n = static_cast<size_t>(from.n);
  const auto nblocks = static_cast<size_t>(from.nblocks);
  const auto nzoff = static_cast<size_t>(from.nzoff);
  to->Pnum = to->Pinv = to->Lip = to->Uip = to->Llen = to->Ulen = nullptr;
  to->Offp = to->Offi = nullptr;
  to->Offx = to->Udiag = to->Work = to->Xwork = nullptr;
  to->Iwork = nullptr;
  to->Rs = nullptr;
  to->LUsize = nullptr;
  to->LUbx = nullptr;
  bool ok = true;
  to->Pnum = copy_array(from.Pnum, n, common, ok);
  to->Pinv = copy_array(from.Pinv, n, common, ok);
  to->Lip = copy_array(from.Lip, n, common, ok);
  to->Uip = copy_array(from.Uip, n, common, ok);
  to->Llen = copy_array(from.Llen, n, common, ok);
  to->Ulen = copy_array(from.Ulen, n, common, ok);
  to->Offp = copy_array(from.Offp, n + 1, common, ok);
  to->Offi = copy_array(from.Offi, nzoff + 1, common, ok);
  to->Offx = copy_array(static_cast<const double*>(from.Offx), nzoff + 1, common, ok);
  to->Udiag = copy_array(static_cast<const double*>(from.Udiag), n, common, ok);
  to->Rs = copy_array(from.Rs, n, common, ok);
  to->LUsize = copy_array(from.LUsize, nblocks, common, ok);
  if (from.LUbx != nullptr && nblocks > 0) {
    to->LUbx = static_cast<void**>(klu_malloc(nblocks, sizeof(void*), common));
    if (to->LUbx == nullptr) {
      ok = false;
    } else {
      for (size_t b = 0; b < nblocks; ++b) to->LUbx[b] = nullptr;  // freeable at any point
      for (size_t b = 0; b < nblocks && ok; ++b)
        to->LUbx[b] =
            copy_array(static_cast<const double*>(from.LUbx[b]), from.LUsize[b], common, ok);
    }
  }
  if (from.Work != nullptr && from.worksize > 0) {
    to->Work = klu_malloc(from.worksize, 1, common);  // scratch: its contents need no copy
    if (to->Work == nullptr) ok = false;
    to->Xwork = to->Work;
    to->Iwork =
        to->Work == nullptr ? nullptr : reinterpret_cast<int*>(static_cast<double*>(to->Work) + n);
  }
  if (!ok) {
    klu_free_numeric(&to, common);
    return nullptr;
  }
  return to;
}

}  // namespace nsspice::solvers
