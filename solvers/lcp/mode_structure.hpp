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
  // K(σ)'s values for `mode` and the step size's W (which must fit) into k.
  void set_values(const std::vector<char>& mode, const SparseMatrix& w);
  double bytes() const;

  int n, m;
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
};

}  // namespace nsspice::solvers
