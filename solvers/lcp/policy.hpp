// Selection policy for the dense LCP solvers: which method to run on LCP(M, q), and in which
// order to fall back when it fails (docs/solvers.md §3).
//
// Structure tests (n = size, ε = machine epsilon, S = (M + Mᵀ)/2, τ = 16 (n+1) ε ‖M‖∞):
//   symmetric:  max_ij |M_ij − M_ji| ≤ τ
//   PD:         Cholesky (LLT) of S succeeds                      (⇒ M is a P-matrix)
//   PSD:        Cholesky of S + τ I succeeds                      (⇒ M is copositive-plus)
// Order (auto):
//   primary:   n ≥ large_size and M symmetric PD: PGS with polishing, limited to
//                pgs_first_sweeps sweeps (convergent for this class; on the diagonally
//                dominant Schur complements of RC networks it ends in a few sweeps, 20×
//                faster than pivoting at n = 1000, see docs/solvers.md §4);
//              n ≥ large_size and S PD (a non-symmetric P-matrix): Murty (finite, one
//                principal pivot per step on an n×n tableau, half of Lemke's);
//              otherwise Lemke (finite for P and copositive-plus M; the default).
//   fallbacks, in this order, skipping the primary and any method whose necessary condition
//   fails: Lemke; Murty (needs M_ii > 0); semismooth Newton; PGS (needs symmetric M with
//   M_ii ≥ 0); enumeration (n ≤ enumeration_max_size).
//   Stop at the first kSolved. Lemke's kInfeasible on a PSD M is a proof (copositive-plus
//   theory, Cottle, Pang, Stone 1992 Thm 4.4.13) and ends the search, as does enumeration's
//   proof. Otherwise the best attempt is returned: kInaccurate with the smallest residual,
//   else kInfeasible if any method reported it, else the primary's result.
// A forced method (LcpPolicy::force) runs alone unless `fallback_when_forced` is set.
// Below large_size the auto order starts with Lemke whatever the structure: the structure is
// then tested only when Lemke does not solve (for the fallbacks and the proof).
//
// Reference: AB08 §12.4.9 ("How to choose an LCP solver?").
#pragma once

#include <Eigen/Core>
#include <optional>
#include <string_view>
#include <vector>

#include "solvers/lcp/enumeration.hpp"
#include "solvers/lcp/fb_newton.hpp"
#include "solvers/lcp/lcp.hpp"
#include "solvers/lcp/lemke.hpp"
#include "solvers/lcp/murty.hpp"
#include "solvers/lcp/pgs.hpp"

namespace nsspice::solvers {

enum class LcpSolverKind { kAuto, kLemke, kMurty, kEnumeration, kPgs, kNewton };
// Number of LcpSolverKind values (for per-method counters indexed by the enum).
inline constexpr int kLcpSolverKindCount = 6;

// "auto", "lemke", "murty", "enum", "pgs", "newton" (case-insensitive); nullopt otherwise.
std::optional<LcpSolverKind> parse_lcp_solver(std::string_view name);
// The name parse_lcp_solver accepts.
std::string_view to_string(LcpSolverKind kind);

struct LcpPolicy {
  LcpSolverKind force = LcpSolverKind::kAuto;
  bool fallback_when_forced = false;  // a forced method falls back in the auto order
  int large_size = 64;                // auto: PGS / Murty first for PD M from this size on
  int pgs_first_sweeps = 50;          // sweep limit of PGS when it runs first
  int enumeration_max_size = 12;      // enumeration as a last resort up to this size
  LemkeOptions lemke;
  MurtyOptions murty;
  EnumerationOptions enumeration;
  PgsOptions pgs;
  FbNewtonOptions newton;

  // Empty if every solver's options validate and the sizes are ≥ 0; else the first field out
  // of range ("pgs.omega = 2: must be in (0, 2)").
  std::string validate() const;
};

struct MatrixStructure {
  bool symmetric = false;
  bool psd = false;  // symmetric part PSD to tolerance
  bool pd = false;   // symmetric part PD
  bool positive_diagonal = false;
};

struct LcpAttempt {
  LcpSolverKind kind = LcpSolverKind::kLemke;
  LcpStatus status = LcpStatus::kNumericalFailure;
  int pivots = 0, iterations = 0;
  double residual = 0;
  double seconds = 0;
  std::string message;
};

// The answer (as an LcpResult) plus how it was obtained.
struct PolicyResult : LcpResult {
  LcpSolverKind method = LcpSolverKind::kAuto;  // the method that produced z (kAuto: none ran)
  std::vector<LcpAttempt> attempts;             // every method run, in order
  // Filled when the order needed it (auto below large_size: only when Lemke did not solve).
  MatrixStructure structure;
  // kInfeasible with a proof: Lemke's secondary ray on a PSD matrix, PGS's zero row with
  // q_i < 0, or enumeration of every mode. Otherwise an infeasible status only says that the
  // methods run found no solution (on a matrix that is not a P-matrix one may exist).
  bool proven_infeasible = false;
};

MatrixStructure analyze_structure(const Eigen::MatrixXd& M);

// Runs one method with the policy's options for it.
LcpResult run_lcp_solver(LcpSolverKind kind, const Eigen::MatrixXd& M, const Eigen::VectorXd& q,
                         const LcpPolicy& policy);

// Solves LCP(M, q) by the policy of the header.
PolicyResult solve_lcp(const Eigen::MatrixXd& M, const Eigen::VectorXd& q,
                       const LcpPolicy& policy = {});

}  // namespace nsspice::solvers
