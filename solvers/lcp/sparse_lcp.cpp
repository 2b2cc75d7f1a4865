// LCP(M, q) with sparse M by the mode iteration's block principal pivoting (sparse_lcp.hpp).
#include "solvers/lcp/sparse_lcp.hpp"

#include <vector>

namespace nsspice::solvers {

SparseLcpResult solve_sparse_lcp(const SparseMatrix& M, const Eigen::VectorXd& q,
                                 int dense_transform_max) {
  SparseLcpResult out;
  const int m = static_cast<int>(M.rows());
  if (M.cols() != m || q.size() != m) {
    out.lcp.status = LcpStatus::kInvalidInput;
    out.lcp.message = "M must be square and q of its size";
    return out;
  }
  SparseMatrix eye(m, m);
  eye.setIdentity();
  eye.makeCompressed();
  SparseMatrix b = M;
  b.makeCompressed();
  const SparseMatrix d(m, m), c_off(m, m);
  KluSymbolic symbolic;
  if (symbolic.analyze(mode_matrix_pattern(eye, b, eye, d, c_off)) != LuStatus::kOk) {
    out.lcp.status = LcpStatus::kNumericalFailure;
    out.lcp.message = "the pattern of the mode systems is structurally singular";
    return out;
  }
  ModeMlcp solver(eye, b, eye, d, c_off, std::vector<char>(static_cast<size_t>(m), 0), symbolic, 8);
  solver.set_dense_transform_max(dense_transform_max);
  std::vector<char> mode(static_cast<size_t>(m), 0);
  Eigen::VectorXd x, z, w;
  const MlcpOutcome o = solver.solve(Eigen::VectorXd::Zero(m), q, mode, x, z, w);
  out.stats = solver.stats();
  out.factorizations = solver.cache().factorizations();
  out.refactorizations = solver.cache().refactorizations();
  out.lcp.status = o.status;
  out.lcp.message = o.message;
  if (!has_answer(o.status)) return out;
  out.lcp.z = z;
  out.lcp.w = M * z + q;
  out.lcp.z_basic = mode;
  out.lcp.pivots = static_cast<int>(out.stats.pivots);
  out.lcp.residual = lcp_residual(out.lcp.z, out.lcp.w);
  return out;
}

}  // namespace nsspice::solvers
