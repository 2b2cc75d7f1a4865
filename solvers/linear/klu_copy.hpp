#pragma once
// Deep copy of a KLU numeric factorization (internal to solvers/linear: it sees klu.h).
//
// KLU has no copy function, but its klu_numeric is a public struct (klu.h) whose arrays all come
// from klu_malloc with the sizes klu_free_numeric frees them with (KLU/Source/klu_free_numeric.c,
// SuiteSparse 5.x–7.x): Pnum, Pinv, Lip, Uip, Llen, Ulen, Udiag, Rs (n each), Offp (n + 1), Offi,
// Offx (nzoff + 1), LUsize and LUbx (nblocks), LUbx[b] (LUsize[b] doubles: KLU's Unit is a
// double for real matrices), Work (worksize bytes, with the aliases Xwork = Work and
// Iwork = (int*)((double*)Work + n), as klu_factor sets them). The copy holds the same pivot
// sequence and values; klu_refactor on it recomputes the values of another matrix with the
// same pattern without a new factorization's pivot search and allocation.
#include <klu.h>

namespace nsspice::solvers {

// A new numeric object equal to `from` (allocated through `common`), or nullptr when out of
// memory. Free it with klu_free_numeric.
klu_numeric* copy_klu_numeric(const klu_numeric& from, klu_common* common);

}  // namespace nsspice::solvers
