#pragma once
// The parts of the mode systems K(σ) (mode_mlcp.hpp, docs/formulation.md §3.2) that do not depend
// on the step size, built once per run and shared by the ModeMlcp of every step size θh:
//
//   K(σ) = [ W        −B      ]      row n+j, j ∈ σ:  C_j x + D_j λ = −d_j
//          [ C_σ, e_σ̄ rows    ]      row n+j, j ∉ σ:  λ_j = 0 (C_off_j x + λ_j = 0 when forced)
//
// Only W = G + E/(θh) depends on h. The pattern of K, the entries of −B and of the pair rows in
// both states, C, D, C_off (by columns and by rows) and their norms are the same for every step
// size; a step size adds only W's values (O(nnz W)), which set_values() places into the shared
// pattern through w_position. The matrix `k` is the scratch in which the values of one mode are
// assembled before a factorization: the structure is used from one thread.
//
// Condensed pairs. A pair j whose D row and column hold nothing but D_jj > 0 and whose off row
// is λ_j = 0 (no C_off row) — a segment of a PWL device, an ideal diode in series with 1/D_jj —
// is not an unknown of K: in mode σ its λ_j is eliminated,
//
//   j ∈ σ:  λ_j = (ρ_j − C_j x) / D_jj   →  W += B_j C_j / D_jj  (its conductance stamp),
//   j ∉ σ:  λ_j = ρ_j,
//
// and the right-hand side of the node rows gains B_j ρ_j / D_jj or B_j ρ_j. K(σ) then has order
// n + (pairs not condensed) and every mode still one pattern (W's and the stamps'); a PWL
// device's K segments cost what one node conductance does in the factorization and the solves
// (issue 18: pairs on a lower segment cost no more per step than an ideal diode). solve() and
// solve_many() take and return the vectors of the full K(σ) u = ρ (n + m), so that the mode
// iteration, the transforms and the low-rank updates see the same K(σ)⁻¹ as before;
// det K(σ) = det K_c(σ) · Π_{j∈σ condensed} D_jj, so the condensed system is singular exactly
// when K(σ) is. full_matrix() builds the uncondensed K(σ) (rank tests).
//
// Free pairs across an ideal switch (a diode antiparallel to a switch: C_j = α C_s, B_j ∝ B_s)
// are found here once (find_shadows); ModeMlcp holds such a pair off while its switch is on,
// which leaves the solution set's x unchanged and removes a degenerate pair (λ_j = w_j = 0).
#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <vector>

#include "solvers/linear/klu_lu.hpp"

namespace nsspice::solvers {

// The sparsity pattern shared by every K(σ) of (W, B, C, D); W's pattern must be the
// union of those of E and G so that one pattern serves all step sizes.
SparseMatrix mode_matrix_pattern(const SparseMatrix& w, const SparseMatrix& b,
                                 const SparseMatrix& c, const SparseMatrix& d,
                                 const SparseMatrix& c_off);

// The pairs that K condenses (header): 1 for a pair whose D row and column hold only D_jj > 0
// and that has no C_off row.
std::vector<char> condensed_pairs(const SparseMatrix& d, const SparseMatrix& c_off);

struct ModeStructure {
  using RowMatrix = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;

  // `w_pattern`: W's pattern (values ignored), which the W of every step size must have. Pairs
  // with forced[j] = 1 are externally switched (ideal switches).
  ModeStructure(const SparseMatrix& w_pattern, const SparseMatrix& b, const SparseMatrix& c,
                const SparseMatrix& d, const SparseMatrix& c_off, std::vector<char> forced);
  ModeStructure(const ModeStructure&) = delete;
  ModeStructure& operator=(const ModeStructure&) = delete;

  // True when `w` has the pattern of the structure's W (compressed, same index arrays).
  bool fits(const SparseMatrix& w) const;
  // K(σ)'s values (condensed) for `mode` and the step size's W (which must fit) into k.
  void set_values(const std::vector<char>& mode, const SparseMatrix& w);
  // u ← K(σ)⁻¹ u for the full system (n + m rows), where `f` is the factor of the condensed
  // K(σ) of `mode` (header); solve_many: each column.
  void solve(const KluFactor& f, const std::vector<char>& mode, Eigen::Ref<Eigen::VectorXd> u);
  void solve_many(const KluFactor& f, const std::vector<char>& mode, Eigen::Ref<Eigen::MatrixXd> u);
  // The uncondensed K(σ) of `mode` (order n + m) for the step size's W.
  SparseMatrix full_matrix(const std::vector<char>& mode, const SparseMatrix& w) const;
  double bytes() const;

  int n, m;
  // Order of K (n + pairs not condensed), and each pair's row and column in it (−1: condensed).
  int order = 0;
  std::vector<int> row_of;
  std::vector<int> pair_of_row;  // row n + i of K → its pair (i < order − n)
  std::vector<int> condensed;    // the condensed pairs
  std::vector<double> inv_d;     // 1 / D_jj by pair (condensed pairs only, else 0)
  // The stamp B_j C_j / D_jj of condensed pair j: positions in k's values and the values,
  // entries stamp_start[i] … stamp_start[i + 1] − 1 for j = condensed[i].
  std::vector<int> stamp_start, stamp_position;
  std::vector<double> stamp_value;
  SparseMatrix c, d, b;                  // for w = C x + D λ + d, and B
  RowMatrix c_rows, d_rows, c_off_rows;  // row-major copies (pair slacks, reduced system)
  std::vector<char> forced;              // externally switched pairs
  std::vector<int> free;                 // the complementarity pairs (not forced)
  // Free pairs across an ideal switch (find_shadows): shadow[j] = the forced pair s whose on row
  // fixes w_j (C_j = ratio[j]·C_s, B_j ∝ B_s, no other D entries than D_jj ≥ 0), else −1.
  std::vector<int> shadow;
  std::vector<double> shadow_ratio;
  bool any_shadow = false;
  Eigen::VectorXd c_row_norm, d_row_norm;  // ‖C_j‖₁, ‖D_j‖₁
  Eigen::VectorXd b_col_max;               // max_i |B_ij|
  SparseMatrix k;                          // pattern of K(σ); values: scratch of set_values
  // Per entry of k: its value when its pair conducts / blocks (entries of W's block: unused),
  // and its index in W's values (−1 outside W's block).
  std::vector<double> on_values, off_values;
  std::vector<int> w_position;
  std::vector<int> w_outer, w_inner;  // W's pattern

 private:
  void find_shadows();
  // The condensed right-hand side of column `u` into v (order), and the full solution back.
  void condense(const std::vector<char>& mode, const double* u, double* v) const;
  void expand(const std::vector<char>& mode, const double* v, double* u) const;
  Eigen::VectorXd scratch_;  // solve()'s condensed vector (order)
};

}  // namespace nsspice::solvers
