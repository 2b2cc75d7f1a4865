#pragma once
// Names the causes of a matrix that cannot be factored, in the circuit's terms.
//
// The matrices factored by the operating point and the time steppers have the unknowns of
// Assembled (node voltages, branch currents) as rows and columns (G, E, G + E/(θh), ... with
// the modes' complementarity rows appended after row n). solvers::find_singular_block() finds
// the singular part (overflow, structural or numerical, solvers/linear/singular_block.hpp);
// this maps its rows/columns to unknown names ("v(out)", "i(v1)") and to the devices whose
// stamps touch them (Assembled::unknown_devices).
//
// The operating point and the θ-scheme's failure path call explain_mode() (below) with the mode
// in force when the equations could not be solved.
//
// How a caller uses it (e.g. when a factorization reports LuStatus::kSingular at time t):
//     const std::string why = circuit::explain_singular_matrix(assembled, matrix, rhs);
//     message = fmt::format("singular matrix at t = {} s: {}", t, why);
// or, with unknown indices found otherwise: circuit::explain_singular(assembled, unknowns).
#include <Eigen/Core>
#include <string>
#include <vector>

#include "circuit/assemble.hpp"
#include "solvers/linear/singular_block.hpp"

namespace nsspice::circuit {

// "v(a), i(v1) (devices: c1, v1)": the names of the given unknowns (indices into
// Assembled::unknown_names; index n + j, a column of K(σ), is "lambda(d1)", pair j's current)
// and of the devices stamping them. As rows, index k < n is "KCL at a" or "branch equation of
// v1", index n + j "complementarity row of d1".
std::string explain_singular(const Assembled& a, const std::vector<int>& unknowns);

// A sentence for the whole block:
//   overflow:   "overflow: non-finite or out-of-range (|x| > 1e150) entries: G[i(v1), v(a)] =
//               1e+308 ...; devices: r1, v1"
//   structural: "structurally singular (structural rank 2 of 3); unknowns not determined:
//               v(b) (devices: c1, c2); dependent (or empty) equations: KCL at b (devices:
//               c1, c2)"
//   numerical:  "numerically singular; unknowns not determined: ...; dependent (or empty)
//               equations: branch equation of e1, ..." (the same shape)
std::string explain_singular(const Assembled& a, const solvers::SingularBlock& block,
                             const solvers::SparseMatrix& matrix,
                             const Eigen::Ref<const Eigen::VectorXd>& rhs = Eigen::VectorXd());

// find_singular_block(matrix, rhs) + the sentence above ("" when the matrix is nonsingular).
std::string explain_singular_matrix(
    const Assembled& a, const solvers::SparseMatrix& matrix,
    const Eigen::Ref<const Eigen::VectorXd>& rhs = Eigen::VectorXd());

// K(σ) of solvers/lcp/mode_mlcp.hpp for the mode `mode` (1 = pair conducts / switch on), on
// the unknowns (x, λ) of `a`:
//   rows 0..n−1:  [ W  −B ]
//   row n + j:    [ C_j  D_j ]  (pair j conducting),   [ C_off_j  e_j ]  (otherwise).
// W is G for the operating point and G + E/(θh) for a step.
solvers::SparseMatrix mode_matrix(const Assembled& a, const solvers::SparseMatrix& w,
                                  const std::vector<char>& mode);

// Why the equations of `mode` cannot be solved, with W = G + E/δ (δ = θh of a step; δ = 0:
// the operating point, W = G): explain_singular_matrix() of K(σ) above.
struct ModeDiagnosis {
  std::string text;       // "" when K(σ) is nonsingular (the failure then had another cause)
  bool overflow = false;  // the cause is a value out of range, not a singular circuit
  std::vector<std::string> devices;  // the devices of the singular block, in netlist order
  // The failure message with its cause: "MESSAGE: TEXT"; for an overflow TEXT alone (the
  // solver's "singular" would be wrong); MESSAGE when there is no text.
  std::string with(const std::string& message) const;
};
ModeDiagnosis explain_mode(const Assembled& a, double delta, const std::vector<char>& mode);

}  // namespace nsspice::circuit
