#include "solvers/time/operating_point.hpp"

namespace nsspice::solvers {

OperatingPoint solve_operating_point(const Mlcs& mlcs, double t) {
  OperatingPoint op;
  SparseMatrix g = mlcs.G;
  g.makeCompressed();
  KluSymbolic symbolic;
  symbolic.analyze(mode_matrix_pattern(g, mlcs.B, mlcs.C, mlcs.D));
  ModeMlcp solver(g, mlcs.B, mlcs.C, mlcs.D, symbolic, 8);
  Eigen::VectorXd s, b;
  mlcs.eval_b(t, s, b);
  op.mode.assign(mlcs.m, 0);
  op.outcome = solver.solve(b, mlcs.d, op.mode, op.x, op.lambda, op.w);
  return op;
}

}  // namespace nsspice::solvers
